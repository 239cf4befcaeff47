import { describe, expect, it } from "vitest";
import { htmlToText } from "../../src/net/html-to-text.js";

describe("htmlToText (spec 000's HtmlUtilities rules)", () => {
  it("puts block elements on their own lines", () => {
    expect(htmlToText("<div>one</div><div>two</div><p>three</p><h2>Four</h2><blockquote>five</blockquote><section>six</section>")).toBe(
      "one\ntwo\n\nthree\n\nFour\n\n> five\n\nsix",
    );
  });

  it("keeps headings' words as written", () => {
    expect(htmlToText("<h1>Mixed Case Title</h1>")).toBe("Mixed Case Title");
  });

  it("marks list items with bullets and numbers, nested lists indented", () => {
    expect(htmlToText("<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul><ol><li>x</li><li>y</li></ol>")).toBe("• a\n• b\n  • c\n1. x\n2. y");
  });

  it("separates table cells with tabs, one row per line", () => {
    const html =
      "<table><thead><tr><th>Name</th><th>Age</th></tr></thead><tbody><tr><td>Ann</td><td>31</td></tr><tr><td>Bo<br>b</td><td></td></tr></tbody></table>";
    expect(htmlToText(html)).toBe("Name\tAge\nAnn\t31\nBo b");
  });

  it("drops script, style, head and form controls", () => {
    const html =
      "<html><head><title>T</title><style>p{}</style></head><body><script>evil()</script><p>kept</p>" +
      "<noscript>ns</noscript><button>Click</button><template><p>tpl</p></template></body></html>";
    expect(htmlToText(html)).toBe("kept");
  });

  it("decodes entities", () => {
    expect(htmlToText("<p>&lt;tag&gt; &amp; &quot;q&quot; &#39;s&#39; &eacute; &#x1F600; &nbsp;x</p>")).toBe("<tag> & \"q\" 's' é 😀 x");
  });

  it("normalises whitespace but keeps <pre> exactly", () => {
    const html =
      "<p>  lots   of\n\n   space  </p>\n\n\n<p>next</p><pre>def f():\n    return  1\n\n\n</pre><blockquote><pre>  quoted\n    code</pre></blockquote>";
    expect(htmlToText(html)).toBe("lots of space\n\nnext\n\ndef f():\n    return  1\n\n>   quoted\n>     code");
  });

  it("keeps link targets, resolved against the page, and can leave them out", () => {
    const html =
      '<p><a href="/docs">Docs</a> <a href="#top">Top</a> <a href="https://x.test/">https://x.test/</a> <img src="a.png" alt="Logo"></p>';
    expect(htmlToText(html, { baseUrl: "https://site.test/a/b" })).toBe("Docs [https://site.test/docs] Top https://x.test/ Logo");
    expect(htmlToText(html, { links: false })).toBe("Docs Top https://x.test/ Logo");
  });

  it("copes with empty input, fragments and broken markup", () => {
    expect(htmlToText("")).toBe("");
    expect(htmlToText("plain text")).toBe("plain text");
    expect(htmlToText("<p>unclosed <b>bold <i>both</p><div>after")).toBe("unclosed bold both\n\nafter");
  });

  it("survives hostile nesting depth", () => {
    const deep = "<div>".repeat(20_000) + "deep" + "</div>".repeat(20_000);
    expect(() => htmlToText(deep)).not.toThrow();
  });
});
