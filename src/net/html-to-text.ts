import type { FormatCallback, HtmlToTextOptions, SelectorDefinition } from "html-to-text";
import { lazyRequire } from "../process/lazy-require.js";

const htmlToTextLib = lazyRequire<typeof import("html-to-text")>("html-to-text");

/** How {@link htmlToText} renders a page. */
export interface HtmlToTextOptionsLite {
  /**
   * Keep link targets after the link text (`text [https://...]`). Default true: an agent often
   * needs to follow a link it read. Relative links are resolved against `baseUrl` when given.
   */
  links?: boolean;
  /** The page's URL, to make relative links absolute. */
  baseUrl?: string;
}

/**
 * Tables as spec 000's HtmlUtilities writes them: one row per line, cells separated by tabs.
 * html-to-text's own table formatters pad columns with spaces, which loses the cell boundaries.
 */
const tabTable: FormatCallback = (elem, walk, builder, formatOptions) => {
  builder.openTable();
  const walkRows = (nodes: typeof elem.children): void => {
    for (const node of nodes ?? []) {
      if (node.type !== "tag") continue;
      if (node.name === "thead" || node.name === "tbody" || node.name === "tfoot") {
        walkRows(node.children);
      } else if (node.name === "tr") {
        builder.openTableRow();
        for (const cell of node.children ?? []) {
          if (cell.type !== "tag" || (cell.name !== "td" && cell.name !== "th")) continue;
          builder.openTableCell();
          walk(cell.children, builder);
          builder.closeTableCell();
        }
        builder.closeTableRow();
      }
    }
  };
  walkRows(elem.children);
  builder.closeTable({
    tableToString: (rows) =>
      rows
        // A cell's own line breaks would split the row; inside a cell they become spaces.
        .map((cells) => cells.map((c) => c.text.replace(/\s*\n\s*/g, " ").trim()).join("\t"))
        .filter((line) => line.trim() !== "")
        .join("\n"),
    leadingLineBreaks: (formatOptions.leadingLineBreaks as number | undefined) ?? 2,
    trailingLineBreaks: (formatOptions.trailingLineBreaks as number | undefined) ?? 2,
  });
};

const altText: FormatCallback = (elem, _walk, builder) => {
  const alt = (elem.attribs as Record<string, string> | undefined)?.alt?.trim();
  if (alt) builder.addInline(alt);
};

/** Resolves a link against the page's address; leaves what cannot be resolved as written. */
function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/** Marks a line from <pre> so whitespace normalisation leaves its indentation alone. */
const PRE_MARK = "\uE000";

type DomNode = Parameters<FormatCallback>[0];

function rawText(nodes: DomNode[] | undefined): string {
  let out = "";
  for (const node of nodes ?? []) {
    if (node.type === "text") out += (node as unknown as { data: string }).data;
    else if (node.type === "tag" && node.name === "br") out += "\n";
    else if (node.type === "tag" && node.name !== "script" && node.name !== "style") out += rawText(node.children);
  }
  return out;
}

/** Code and preformatted text keep their indentation and line breaks exactly. */
const preKeep: FormatCallback = (elem, _walk, builder, formatOptions) => {
  const text = rawText(elem.children).replace(/^\n/, "").replace(/\s+$/, "");
  builder.openBlock({ isPre: true, leadingLineBreaks: (formatOptions.leadingLineBreaks as number | undefined) ?? 2 });
  builder.addLiteral(
    text
      .split("\n")
      .map((line) => PRE_MARK + line)
      .join("\n"),
  );
  builder.closeBlock({ trailingLineBreaks: (formatOptions.trailingLineBreaks as number | undefined) ?? 2 });
};

const block = (selector: string, lines = 1): SelectorDefinition => ({
  selector,
  format: "block",
  options: { leadingLineBreaks: lines, trailingLineBreaks: lines },
});

const heading = (selector: string): SelectorDefinition => ({
  selector,
  format: "heading",
  // Upper-casing headings (the library's default) changes the words; a blank line sets them apart.
  options: { leadingLineBreaks: 2, trailingLineBreaks: 1, uppercase: false },
});

const skip = (selector: string): SelectorDefinition => ({ selector, format: "skip" });

function optionsFor(links: boolean, baseUrl: string | undefined): HtmlToTextOptions {
  return {
    // Lines are not wrapped: the reader is a model, not an 80-column terminal.
    wordwrap: false,
    formatters: { tabTable, altText, preKeep },
    // Deeply nested markup (hostile or generated) must not exhaust the stack.
    limits: { maxDepth: 400, ellipsis: "…", maxInputLength: 20_000_000 },
    selectors: [
      ...[
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "svg",
        "iframe",
        "object",
        "canvas",
        "button",
        "select",
        "input",
        "textarea",
      ].map(skip),
      {
        selector: "a",
        options: {
          ignoreHref: !links,
          hideLinkHrefIfSameAsText: true,
          noAnchorUrl: true,
          ...(baseUrl ? { pathRewrite: (href: string) => absolute(href, baseUrl) } : {}),
        },
      },
      // An image's address says nothing in text; its alt text is kept.
      { selector: "img", format: "altText" },
      ...["h1", "h2", "h3", "h4", "h5", "h6"].map(heading),
      ...[
        "div",
        "section",
        "article",
        "aside",
        "header",
        "footer",
        "main",
        "nav",
        "form",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "fieldset",
        "legend",
        "center",
        "dl",
        "dt",
        "tr",
      ].map((s) => block(s)),
      { selector: "dd", format: "block", options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: "blockquote", format: "blockquote", options: { leadingLineBreaks: 2, trailingLineBreaks: 2, trimEmptyLines: true } },
      { selector: "p", format: "paragraph", options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: "ul", format: "unorderedList", options: { itemPrefix: "• ", leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: "ol", format: "orderedList", options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: "pre", format: "preKeep", options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: "table", format: "tabTable", options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: "hr", format: "horizontalLine", options: { leadingLineBreaks: 2, trailingLineBreaks: 2, length: 3 } },
    ],
  };
}

const converters = new Map<string, (html: string) => string>();

function converterFor(links: boolean, baseUrl: string | undefined): (html: string) => string {
  // Compiling the selectors is the costly part; a few shapes cover every caller.
  const key = `${links}\u0000${baseUrl ?? ""}`;
  let convert = converters.get(key);
  if (!convert) {
    convert = htmlToTextLib().compile(optionsFor(links, baseUrl));
    if (converters.size > 32) converters.clear();
    converters.set(key, convert);
  }
  return convert;
}

/** Collapses runs of spaces, trims each line, and allows at most one blank line in a row. */
export function normalizeWhitespace(text: string): string {
  return (
    text
      .replace(/\r\n?/g, "\n")
      .replace(/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, " ")
      .replace(/\u200b/g, "")
      .split("\n")
      // Tabs separate table cells, so only spaces are collapsed; <pre> lines are kept as they are.
      .map((line) => {
        const pre = line.indexOf(PRE_MARK);
        // A <pre> line may sit behind a quote or list prefix; only the prefix is tidied.
        if (pre !== -1) return (line.slice(0, pre).trimStart() + line.slice(pre + 1).replaceAll(PRE_MARK, "")).trimEnd();
        const tidy = line
          .replace(/ {2,}/g, " ")
          .replace(/ *\t */g, "\t")
          .trim();
        // Nested list items keep their indentation, so the nesting stays visible.
        const nested = /^( {2,})(?:• |\d+\. |[a-z]\. )/i.exec(line);
        return nested ? nested[1] + tidy : tidy;
      })
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}

/**
 * Converts HTML to readable plain text (spec 000's HtmlUtilities.HtmlToText): block elements on
 * their own lines, list items with bullets, table cells separated by tabs, no script or style,
 * entities decoded, whitespace normalised. Used by web_fetch, the LinkedIn tools and Gmail.
 *
 * @example
 * htmlToText("<p>Fish &amp; chips</p><ul><li>one</li></ul>") // "Fish & chips\n\n• one"
 */
export function htmlToText(html: string, options: HtmlToTextOptionsLite = {}): string {
  if (!html) return "";
  const text = converterFor(options.links ?? true, options.baseUrl)(html.replaceAll(PRE_MARK, ""));
  return normalizeWhitespace(text);
}
