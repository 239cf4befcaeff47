import { describe, expect, it } from "vitest";
import { DEFAULT_AUTH_URL, DEFAULT_TOKEN_URL, googleServiceConfig } from "../../../src/tools/google/config.js";

describe("services.google", () => {
  it("defaults to Google's endpoints and the workspace for tokens", () => {
    const c = googleServiceConfig({}, "/work/space");
    expect(c).toEqual({
      authUrl: DEFAULT_AUTH_URL,
      tokenUrl: DEFAULT_TOKEN_URL,
      tokenDir: "/work/space",
      authTimeoutMs: 120_000,
      timeoutMs: 30_000,
    });
    expect(c.baseUrl).toBeUndefined();
  });

  it("takes overrides; tokenDir is relative to the workspace; baseUrl gains a trailing slash", () => {
    const c = googleServiceConfig(
      {
        services: {
          google: {
            baseUrl: "http://127.0.0.1:8080",
            authUrl: "http://127.0.0.1:8080/auth",
            tokenUrl: "http://127.0.0.1:8080/token",
            tokenDir: "secrets/google",
            authTimeoutMs: 5000,
          },
        },
      },
      "/work/space",
    );
    expect(c.baseUrl).toBe("http://127.0.0.1:8080/");
    expect(c.tokenDir).toBe("/work/space/secrets/google");
    expect(c.authTimeoutMs).toBe(5000);
    expect(googleServiceConfig({ services: { google: { tokenDir: "/abs/dir" } } }, "/w").tokenDir).toBe("/abs/dir");
  });

  it("names the bad field", () => {
    expect(() => googleServiceConfig({ services: { google: { authTimeoutMs: -1 } } }, "/w")).toThrow(/services\.google.*authTimeoutMs/);
    expect(() => googleServiceConfig({ services: { google: { baseUrl: "file:///etc" } } }, "/w")).toThrow(/baseUrl/);
  });
});
