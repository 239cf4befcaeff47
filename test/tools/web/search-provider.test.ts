import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BraveSearchProvider,
  createRegistry,
  GmailParser,
  htmlToText,
  loadConfig,
  openSession,
  ToolRunner,
  type SearchProvider,
  type SearchResult,
} from "../../../src/index.js";
import { tempDir } from "../../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

/** A provider a user writes: spec 000's ISearchProvider in TypeScript. */
class ListProvider implements SearchProvider {
  readonly name = "List";
  readonly queries: string[] = [];
  async search(query: string, count: number): Promise<SearchResult[]> {
    this.queries.push(query);
    return Array.from({ length: count }, (_, i) => ({ title: `Hit ${i + 1}`, url: `https://example.org/${i + 1}`, description: query }));
  }
}

describe("the extension points spec 000 describes are exported", () => {
  it("another search provider replaces Brave, without BRAVE_API_KEY", async () => {
    const provider = new ListProvider();
    const loaded = loadConfig({ dir: ws.dir, env: {} });
    const registry = await createRegistry(loaded, { searchProvider: provider });
    const runner = new ToolRunner({ registry, workspace: ws.dir, approval: "all" });
    const outcome = await runner.run({ name: "web_search", args: { query: "tackle", numResults: 2 } });
    await runner.close();
    expect(outcome.status).toBe("success");
    expect(outcome.content).toContain("Hit 2");
    expect(outcome.content).not.toContain("Hit 3");
    expect(provider.queries).toEqual(["tackle"]);
  });

  it("openSession takes a provider too", async () => {
    const session = await openSession({ workspace: ws.dir, mcp: false, searchProvider: new ListProvider() });
    try {
      expect(session.registry.has("web_search")).toBe(true);
    } finally {
      await session.close();
    }
  });

  it("without a provider or key there is no web_search", async () => {
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }));
    expect(registry.has("web_search")).toBe(false);
  });

  it("BraveSearchProvider, htmlToText and GmailParser come from the package root", () => {
    expect(new BraveSearchProvider({ apiKey: "k", baseUrl: "http://127.0.0.1:9" }).name).toBe("Brave");
    expect(htmlToText("<p>Hello <b>world</b></p><script>x()</script>")).toBe("Hello world");
    const body = Buffer.from("Grüße", "utf8").toString("base64url");
    expect(GmailParser.extractText({ mimeType: "text/plain", body: { data: body } })).toBe("Grüße");
    expect(GmailParser.getHeader([{ name: "Subject", value: "Hi" }], "subject")).toBe("Hi");
  });
});
