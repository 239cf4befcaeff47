import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { assertListenOptions, isLoopbackHost, requestGuard } from "../../src/net/request-guard.js";

/** The one guard both servers use: each refusal class with its variants, and what must pass. */
const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const at = (path: string) => new URL(path, "http://localhost");
const local = requestGuard({ host: "127.0.0.1", port: () => 4000, token: "tok" });

describe("the request guard", () => {
  it.each([["127.0.0.1:4000"], ["localhost:4000"], ["LOCALHOST"], ["[::1]:4000"]])("lets Host %s through", (host) => {
    expect(local(req({ host, authorization: "Bearer tok" }), at("/mcp"))).toBeUndefined();
  });

  it.each([["evil.example:4000"], ["127.0.0.1.evil.example"], ["user:pw@127.0.0.1:4000"], ["127.0.0.1:4000/path"], [""], ["0.0.0.0:4000"]])(
    "refuses Host %j (DNS rebinding)",
    (host) => {
      expect(local(req({ host, authorization: "Bearer tok" }), at("/mcp"))).toMatchObject({ status: 403 });
    },
  );

  it.each([["http://evil.example"], ["http://127.0.0.1:5000"], ["null"], ["file://"], ["http://localhost.evil.example:4000"]])(
    "refuses Origin %s",
    (origin) => {
      expect(local(req({ host: "127.0.0.1:4000", origin, authorization: "Bearer tok" }), at("/mcp"))).toMatchObject({ status: 403 });
    },
  );

  it("lets this server's own Origin through", () => {
    expect(
      local(req({ host: "127.0.0.1:4000", origin: "http://127.0.0.1:4000", authorization: "Bearer tok" }), at("/mcp")),
    ).toBeUndefined();
  });

  it.each([
    [undefined],
    ["Bearer wrong"],
    ["Basic tok"],
    ["Bearer tokx"],
    ["Bearer"],
    ["tok"],
    ["Bearer to"],
    ["Bearer TOK"],
    ["Bearer tok\u0000"],
    // as many bytes as the token (ö is two), and a guess cut inside a character
    ["Bearer t\u00f6"],
    ["Bearer \u20ac\u20ac"],
  ])("refuses Authorization %j", (authorization) => {
    const headers: Record<string, string> = { host: "127.0.0.1:4000" };
    if (authorization !== undefined) headers["authorization"] = authorization;
    expect(local(req(headers), at("/mcp"))).toMatchObject({ status: 401 });
  });

  it("judges each request's Host afresh, however often one Host came before", () => {
    const guard = requestGuard({ host: "127.0.0.1", port: () => 4000, token: "tok" });
    for (let i = 0; i < 3; i++) {
      expect(guard(req({ host: "127.0.0.1:4000", authorization: "Bearer tok" }), at("/mcp"))).toBeUndefined();
      expect(guard(req({ host: "evil.example:4000", authorization: "Bearer tok" }), at("/mcp"))).toMatchObject({ status: 403 });
      expect(guard(req({ authorization: "Bearer tok" }), at("/mcp"))).toMatchObject({ status: 403 });
    }
    expect(local(req({ host: "evil.example:4000", authorization: "Bearer tok" }), at("/mcp"))).toMatchObject({ status: 403 });
  });

  it("takes the token from the query only where allowed, and asks for it only where needed", () => {
    const guard = requestGuard({
      host: "127.0.0.1",
      port: () => 4000,
      token: "tok",
      needsToken: (u) => u.pathname.startsWith("/api/"),
      tokenInQuery: (u) => u.pathname === "/api/events",
    });
    const host = { host: "127.0.0.1:4000" };
    expect(guard(req(host), at("/"))).toBeUndefined();
    expect(guard(req(host), at("/api/events?token=tok"))).toBeUndefined();
    expect(guard(req(host), at("/api/tools?token=tok"))).toMatchObject({ status: 401 });
    expect(guard(req(host), at("/api/events?token=bad"))).toMatchObject({ status: 401 });
  });

  it("on a wildcard bind takes any Host, and the token guards it; named hosts narrow it", () => {
    const wide = requestGuard({ host: "0.0.0.0", port: () => 4000, token: "tok" });
    expect(wide(req({ host: "box.lan:4000", authorization: "Bearer tok" }), at("/mcp"))).toBeUndefined();
    expect(wide(req({ host: "box.lan:4000" }), at("/mcp"))).toMatchObject({ status: 401 });
    const named = requestGuard({ host: "0.0.0.0", port: () => 4000, token: "tok", allowedHosts: ["tackle.example"] });
    expect(named(req({ host: "box.lan:4000", authorization: "Bearer tok" }), at("/mcp"))).toMatchObject({ status: 403 });
    const proxied = req({ host: "tackle.example", origin: "https://tackle.example", authorization: "Bearer tok" });
    expect(named(proxied, at("/mcp"))).toBeUndefined();
  });

  it("checks listen options before binding", () => {
    const names = { portFlag: "--http", what: "MCP", tokenEnv: "TACKLE_MCP_TOKEN" };
    expect(() => assertListenOptions({ host: "0.0.0.0", port: 1 }, names)).toThrow(/without a bearer token.*TACKLE_MCP_TOKEN/);
    expect(() => assertListenOptions({ host: "127.0.0.1", port: 70000 }, names)).toThrow(/--http/);
    expect(() => assertListenOptions({ host: "127.0.0.1", port: 1, token: "has space" }, names)).toThrow(/printable/);
    expect(() => assertListenOptions({ host: "127.0.0.1", port: 0 }, names)).not.toThrow();
    expect(isLoopbackHost("127.1.2.3")).toBe(true);
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("127.0.0.1.evil")).toBe(false);
  });
});
