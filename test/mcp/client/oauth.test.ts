import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSession, type Session } from "../../../src/session.js";
import { createLogger } from "../../../src/core/logger.js";
import { hasLogin, login, loginFile, logout } from "../../../src/mcp/client/oauth.js";
import { tempDir } from "../../support/tools.js";
// @ts-expect-error a JavaScript fixture without types
import { startOAuthMcp } from "../../fixtures/mcp/oauth-server.mjs";

interface Remote {
  url: string;
  seen: { authorizations: number; refreshes: number; bearerCalls: number };
  close(): Promise<void>;
}

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/**
 * Plays the person in the browser: follows the authorization page's redirect back to tackle's
 * listener; first, as another process on the machine might, sends it a code of its own.
 */
async function browser(authorizationUrl: URL): Promise<void> {
  const page = await fetch(authorizationUrl, { redirect: "manual" });
  const back = page.headers.get("location");
  if (!back) throw new Error(`the authorization page answered ${page.status}`);
  const forged = new URL(back);
  forged.searchParams.set("code", "someone-elses-code");
  for (const state of [undefined, "guessed"]) {
    if (state) forged.searchParams.set("state", state);
    else forged.searchParams.delete("state");
    const refused = await fetch(forged);
    if (refused.status !== 400) throw new Error(`a callback without the sign-in's state was answered ${refused.status}`);
  }
  expect(new URL(back).searchParams.get("state")).toMatch(/^[0-9a-f]{32}$/);
  await fetch(back);
}

async function setUp(options: { tokenLifetimeS?: number; authorizationEndpoint?: string } = {}) {
  const remote = (await startOAuthMcp(options)) as Remote;
  cleanup.push(() => remote.close());
  const ws = tempDir("tackle-oauth-");
  cleanup.push(() => ws.cleanup());
  writeFileSync(
    path.join(ws.dir, "tackle.config.json"),
    JSON.stringify({ mcpServers: { remote: { url: remote.url, connectTimeoutMs: 20_000 } } }),
  );
  const url = new URL(remote.url);
  cleanup.push(() => logout("remote", url));
  const open = async () => {
    const session = await openSession({ workspace: ws.dir, approval: "all", logger: createLogger("silent") });
    cleanup.push(() => session.close());
    await session.mcpReady;
    return session;
  };
  return { remote, ws, url, open };
}

const call = (s: Session, text: string) => s.runner.run({ name: "remote__echo", args: { text } });

describe("remote MCP servers behind OAuth", () => {
  it("say to run tackle login until signed in; after login the tokens (0600) are sent, and refreshed when they expire", async () => {
    const { remote, url, open } = await setUp({ tokenLifetimeS: 2 });
    const before = await open();
    expect(before.mcp?.status().find((s) => s.name === "remote")?.error).toMatch(/tackle login remote/);
    expect(await login("remote", url, { open: browser, say: () => {} })).toBe("signed-in");
    expect(remote.seen.authorizations).toBe(1);
    const file = loginFile("remote", url);
    expect(hasLogin("remote", url)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ tokens: { token_type: expect.stringMatching(/bearer/i) } });

    const after = await open();
    const out = await call(after, "hello");
    expect(out.status, out.content).toBe("success");
    expect(out.content).toContain("remote says hello");
    // Past the token's lifetime the SDK refreshes it with the refresh token, without a person.
    await new Promise((r) => setTimeout(r, 2_500));
    const later = await call(after, "again");
    expect(later.content).toContain("remote says again");
    expect(remote.seen.refreshes).toBeGreaterThanOrEqual(1);
    expect(remote.seen.authorizations).toBe(1);
  }, 60_000);

  it("an authorization address that is not http or https is never opened", async () => {
    // The SDK refuses javascript:, data: and vbscript: itself; the rest reached the opener.
    for (const [address, why] of [
      ["file:///etc/passwd", /not http or https \(file:\)/],
      ["smb://evil/share", /not http or https \(smb:\)/],
      ["javascript:alert(1)", /^the server's sign-in metadata is not valid: authorization_endpoint.*javascript/],
    ] as const) {
      const { url } = await setUp({ authorizationEndpoint: address });
      const opened: URL[] = [];
      await expect(login("remote", url, { open: async (u: URL) => void opened.push(u), say: () => {} })).rejects.toThrow(why);
      expect(opened).toEqual([]);
    }
  }, 60_000);

  it("tackle login and logout from the command line, with $BROWSER", async () => {
    const { ws, url } = await setUp();
    const { runCli } = await import("../../cli/run-cli.js");
    const opener = path.join(ws.dir, "browser.mjs");
    writeFileSync(
      opener,
      `const page = await fetch(process.argv[2], { redirect: "manual" }); await fetch(page.headers.get("location"));\n`,
    );
    const script = path.join(ws.dir, "browser.sh");
    writeFileSync(script, `#!/bin/sh\nexec "${process.execPath}" "${opener}" "$1"\n`, { mode: 0o755 });
    const signed = await runCli(["login", "remote", "--workspace", ws.dir], { env: { BROWSER: script } });
    expect(signed.stderr).toMatch(/Open this address to sign in to "remote":\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(signed.stdout).toMatch(/^Signed in to "remote"/);
    expect(hasLogin("remote", url)).toBe(true);
    expect((await runCli(["logout", "remote", "--workspace", ws.dir])).stdout).toBe('Signed out of "remote".\n');
    expect(hasLogin("remote", url)).toBe(false);
    const stdio = await runCli(["login", "nothere", "--workspace", ws.dir]);
    expect(stdio.stderr).toMatch(/There is no MCP server "nothere" in the configuration\. Configured: remote\./);
  }, 60_000);
});
