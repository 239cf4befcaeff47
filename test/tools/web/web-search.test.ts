import { afterEach, describe, expect, it } from "vitest";
import { webTools } from "../../../src/tools/web/index.js";
import { createWebSearchTool } from "../../../src/tools/web/web-search.js";
import { BraveSearchProvider } from "../../../src/tools/web/brave.js";
import type { SearchProvider } from "../../../src/tools/web/search-provider.js";
import { startFakeServer, type FakeServer, type Handler } from "../../fixtures/web/fake-server.js";
import { groupContext, runnerFor } from "./helpers.js";

const TOKEN = "brave-test-token";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A fake of Brave's GET /res/v1/web/search, answering in the documented WebSearchApiResponse shape. */
function braveFake(override?: Handler): Promise<FakeServer> {
  return startFakeServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    if (url.pathname !== "/res/v1/web/search") return void res.writeHead(404).end();
    if (req.headers["x-subscription-token"] !== TOKEN) {
      res.writeHead(401, { "content-type": "application/json" });
      return void res.end(
        JSON.stringify({
          type: "ErrorResponse",
          error: { code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid.", status: 401 },
        }),
      );
    }
    if (override) return override(req, res);
    const q = url.searchParams.get("q") ?? "";
    const count = Number(url.searchParams.get("count"));
    const results = Array.from({ length: count }, (_, i) => ({
      type: "search_result",
      title: `Result ${i + 1} for <strong>${q.slice(0, 20)}</strong>`,
      url: `https://example.com/${i + 1}`,
      description: `About <strong>${q.slice(0, 20)}</strong> &amp; more, number ${i + 1}.`,
      language: "en",
    }));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "search", query: { original: q }, mixed: { type: "mixed" }, web: { type: "search", results } }));
  }).then((s) => {
    servers.push(s);
    return s;
  });
}

function searchTool(server: FakeServer) {
  return webTools(groupContext({ services: { brave: { baseUrl: server.url } } }, { BRAVE_API_KEY: TOKEN })) as ReturnType<typeof webTools>;
}

async function search(server: FakeServer, args: Record<string, unknown>) {
  const tools = await searchTool(server);
  const { runner, asked } = runnerFor(tools);
  const outcome = await runner.run({ name: "web_search", args });
  await runner.close();
  return { outcome, asked };
}

describe("webTools registration", () => {
  it("has web_fetch always and web_search exactly when BRAVE_API_KEY is set", async () => {
    const names = async (env: Record<string, string | undefined>) => (await webTools(groupContext({}, env))).map((t) => t.name);
    expect(await names({})).toEqual(["web_fetch"]);
    expect(await names({ BRAVE_API_KEY: "" })).toEqual(["web_fetch"]);
    expect(await names({ BRAVE_API_KEY: "  " })).toEqual(["web_fetch"]);
    expect(await names({ BRAVE_API_KEY: "k" })).toEqual(["web_fetch", "web_search"]);
  });

  it("rejects an invalid web or services section with the field named", () => {
    expect(() => webTools(groupContext({ web: { allowPrivateNetwork: "yes" } }))).toThrow(/"web" is invalid: allowPrivateNetwork/);
    expect(() => webTools(groupContext({ web: { allowPrivateNetwork: ["not-an-ip"] } }))).toThrow(/web/);
    expect(() => webTools(groupContext({ services: { brave: { baseUrl: "ftp://x" } } }, { BRAVE_API_KEY: "k" }))).toThrow(
      /services\.brave/,
    );
  });
});

describe("web_search with Brave", () => {
  it("sends the token and query, and lists numbered results", async () => {
    const server = await braveFake();
    const { outcome, asked } = await search(server, { query: "rust async runtime" });
    expect(outcome.status).toBe("success");
    expect(asked).toHaveLength(0);
    const req = server.requests[0]!;
    const url = new URL(req.url, "http://x");
    expect(url.searchParams.get("q")).toBe("rust async runtime");
    expect(url.searchParams.get("count")).toBe("5");
    expect(req.headers["x-subscription-token"]).toBe(TOKEN);
    expect(req.headers.accept).toBe("application/json");
    expect(outcome.content).toContain('Search results for "rust async runtime" (5 results, via Brave):');
    expect(outcome.content).toContain(
      "1. Result 1 for rust async runtime\n   URL: https://example.com/1\n   About rust async runtime & more, number 1.",
    );
    expect(outcome.content).toContain("5. Result 5");
    expect(outcome.content).toContain("<untrusted-content");
    const structured = outcome.structured as { results: Array<{ title: string; url: string; snippet: string }> };
    expect(structured.results).toHaveLength(5);
    expect(structured.results[0]).toEqual({
      title: "Result 1 for rust async runtime",
      url: "https://example.com/1",
      snippet: "About rust async runtime & more, number 1.",
    });
  });

  it("clamps the count to 1-20 and accepts numResults", async () => {
    const server = await braveFake();
    for (const [args, sent] of [
      [{ query: "a", count: 50 }, "20"],
      [{ query: "a", count: 0 }, "1"],
      [{ query: "a", numResults: 7 }, "7"],
      [{ query: "a", count: -3 }, "1"],
    ] as const) {
      const { outcome } = await search(server, args);
      expect(outcome.status, JSON.stringify(args)).toBe("success");
      expect(new URL(server.requests.at(-1)!.url, "http://x").searchParams.get("count")).toBe(sent);
    }
  });

  it("cuts the query to 400 characters", async () => {
    const server = await braveFake();
    await search(server, { query: "q".repeat(1_000) });
    expect(new URL(server.requests[0]!.url, "http://x").searchParams.get("q")).toBe("q".repeat(400));
  });

  it("refuses an empty query", async () => {
    const server = await braveFake();
    const { outcome } = await search(server, { query: "   " });
    expect(outcome.error?.code).toBe("INVALID_ARGS");
    expect(server.requests).toHaveLength(0);
  });

  it("says when there are no results", async () => {
    const server = await braveFake((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "search", query: { original: "zzz" } }));
    });
    const { outcome } = await search(server, { query: "zzz" });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toContain("(0 results, via Brave)");
    expect(outcome.content).toContain("No results found.");
    expect(outcome.structured).toEqual({ query: "zzz", results: [] });
  });

  it("reports a wrong API key as PERMISSION_DENIED with Brave's detail", async () => {
    const server = await braveFake();
    const tools = await webTools(groupContext({ services: { brave: { baseUrl: server.url } } }, { BRAVE_API_KEY: "wrong" }));
    const { runner } = runnerFor(tools);
    const outcome = await runner.run({ name: "web_search", args: { query: "x" } });
    await runner.close();
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.content).toContain("The provided subscription token is invalid.");
    expect(server.requests).toHaveLength(1);
  });

  it("retries after 429 with Retry-After and succeeds", async () => {
    let calls = 0;
    const server = await braveFake((_req, res) => {
      if (++calls === 1) {
        res.writeHead(429, { "retry-after": "1", "content-type": "application/json" });
        return void res.end(
          JSON.stringify({
            type: "ErrorResponse",
            error: { code: "RATE_LIMITED", detail: "Request rate limit exceeded for plan.", status: 429 },
          }),
        );
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ web: { results: [{ title: "T", url: "https://t.example", description: "D" }] } }));
    });
    const { outcome } = await search(server, { query: "x" });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toContain("1. T\n   URL: https://t.example\n   D");
    expect(server.requests).toHaveLength(2);
  });

  it("reports 5xx as UNAVAILABLE after retrying", async () => {
    const server = await braveFake((_req, res) => void res.writeHead(502).end("bad gateway"));
    const { outcome } = await search(server, { query: "x" });
    expect(outcome.error?.code).toBe("UNAVAILABLE");
    expect(server.requests).toHaveLength(3);
  });

  it("reports a malformed body clearly", async () => {
    const server = await braveFake((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("<html>not json</html>");
    });
    const { outcome } = await search(server, { query: "x" });
    expect(outcome.status).toBe("error");
    expect(outcome.content).toContain("not JSON");
  });

  it("reports a body of the wrong shape clearly", async () => {
    const server = await braveFake((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ web: { results: [{ title: 3 }] } }));
    });
    const { outcome } = await search(server, { query: "x" });
    expect(outcome.error?.code).toBe("EXECUTION_ERROR");
    expect(outcome.content).toContain("documented shape");
  });

  it("stops waiting when the call is cancelled", async () => {
    const server = await braveFake(() => {
      // never answers
    });
    const provider = new BraveSearchProvider({ apiKey: TOKEN, baseUrl: server.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 200);
    await expect(provider.search("x", 5, controller.signal)).rejects.toThrow("stop");
  });
});

describe("web_search with another provider", () => {
  it("uses any SearchProvider", async () => {
    const seen: Array<[string, number]> = [];
    const provider: SearchProvider = {
      name: "Fake",
      search: async (query, count) => {
        seen.push([query, count]);
        return [{ title: "A", url: "https://a.example", description: "" }];
      },
    };
    const { runner } = runnerFor([createWebSearchTool(provider)]);
    const outcome = await runner.run({ name: "web_search", args: { query: "hello", count: 3 } });
    await runner.close();
    expect(seen).toEqual([["hello", 3]]);
    expect(outcome.content).toContain('Search results for "hello" (1 result, via Fake):\n\n1. A\n   URL: https://a.example');
  });
});
