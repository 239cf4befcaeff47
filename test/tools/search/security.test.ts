import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGlobTool } from "../../../src/tools/search/glob.js";
import { CallMemo } from "../../../src/core/call-memo.js";
import { createGrepTool } from "../../../src/tools/search/grep.js";
import { descendantsOf } from "../../../src/process/process-tree.js";
import { BACKENDS, failure, HAS_RG, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

async function ripgrepChildren(): Promise<number[]> {
  const pids = await descendantsOf(process.pid);
  return pids.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "rg";
    } catch {
      return false;
    }
  });
}

describe.each(BACKENDS)("search security (%s backend)", (backend) => {
  const grepTool = createGrepTool({ backend });
  const globTool = createGlobTool({ backend });
  const grep = (args: Record<string, unknown>) => grepTool.execute(args as never, sb.ctx);
  const glob = (args: Record<string, unknown>) => globTool.execute(args as never, sb.ctx);

  it("refuses search roots outside the workspace: .., absolute, sibling prefix, symlink out, ~", async () => {
    writeFileSync(path.join(sb.outside, "secret.txt"), "needle\n");
    writeFileSync(path.join(sb.evil, "secret.txt"), "needle\n");
    symlinkSync(sb.outside, path.join(sb.ws, "escape"));
    for (const p of ["..", "../outside", sb.outside, "/etc", `${sb.ws}-evil`, "../ws-evil", "escape", "escape/secret.txt", "~/"]) {
      const g = await failure(grep({ pattern: "needle", path: p }));
      expect(g.code, `grep path ${p}`).toBe("INVALID_PATH");
      const f = await failure(glob({ pattern: "**/*", path: p }));
      expect(f.code, `glob path ${p}`).toBe("INVALID_PATH");
    }
  });

  it("refuses glob patterns that climb out with .. or name absolute paths outside", async () => {
    writeFileSync(path.join(sb.outside, "secret.txt"), "x\n");
    expect((await failure(glob({ pattern: "../outside/*" }))).code).toBe("INVALID_PATH");
    expect((await failure(glob({ pattern: "src/../../outside/**" }))).code).toBe("INVALID_PATH");
    expect((await failure(glob({ pattern: `${sb.outside}/*` }))).code).toBe("INVALID_PATH");
  });

  it("does not reach outside through a symlinked folder named in a glob pattern", async () => {
    writeFileSync(path.join(sb.outside, "secret.txt"), "x\n");
    symlinkSync(sb.outside, path.join(sb.ws, "link"));
    sb.write({ "a.txt": "x\n" });
    const r = await glob({ pattern: "link/**" });
    expect(r.content).toMatch(/^No files match/);
    expect((await glob({ pattern: "**/*.txt" })).content).toBe("a.txt");
  });

  it("treats patterns that look like options as patterns (no option injection)", async () => {
    sb.write({ "a.txt": "--pre=sh\n-e\n--files\nplain\n-rf /\n" });
    expect((await grep({ pattern: "--pre=sh" })).content).toBe("a.txt:1: --pre=sh");
    expect((await grep({ pattern: "-e" })).content).toBe("a.txt:2: -e");
    expect((await grep({ pattern: "--files" })).content).toBe("a.txt:3: --files");
    expect((await grep({ pattern: "-rf /" })).content).toBe("a.txt:5: -rf /");
    // A glob filter or path that looks like an option is data too.
    expect((await grep({ pattern: "plain", glob: "--pre=sh" })).content).toMatch(/^No matches/);
    expect((await failure(grep({ pattern: "plain", path: "--pre=sh" }))).code).toBe("FILE_NOT_FOUND");
  });

  it("searches a directory whose name starts with a dash", async () => {
    sb.write({ "-e/x.txt": "found\n", "--pre=cat/y.txt": "found\n" });
    expect((await grep({ pattern: "found", path: "-e" })).content).toBe("-e/x.txt:1: found");
    expect((await grep({ pattern: "found", path: "--pre=cat" })).content).toBe("--pre=cat/y.txt:1: found");
    expect((await glob({ pattern: "**/*.txt", path: "-e" })).content).toBe("-e/x.txt");
  });

  it("never prints lines from files that may hold secrets", async () => {
    sb.write({
      ".env": "API_KEY=needle-secret\n",
      "config/.env.production": "needle-secret\n",
      "keys/server.pem": "needle-secret\n",
      ".aws/credentials": "needle-secret\n",
      ".env.example": "API_KEY=needle-placeholder\n",
      "app.ts": "const needle = 1;\n",
    });
    const r = await grep({ pattern: "needle" });
    expect(r.content).toBe(".env.example:1: API_KEY=needle-placeholder\napp.ts:1: const needle = 1;");
    expect(r.content).not.toContain("secret");
    // Nothing tells the model that a secret file matched.
    expect(r.structured).toMatchObject({ totalMatches: 2, files: 2 });
  });

  it("lets configuration opt in to searching secret files", async () => {
    sb.write({ ".env": "API_KEY=needle\n" });
    const open = createGrepTool({ backend, includeSensitive: true });
    expect((await open.execute({ pattern: "needle" } as never, sb.ctx)).content).toBe(".env:1: API_KEY=needle");
  });

  it("goes through the policy: a secret file as the search root is denied unless a rule allows it", async () => {
    sb.write({ ".env": "API_KEY=needle\n" });
    const runner = makeRunner(sb.ws, backend, { approval: "all" });
    const denied = await runner.run({ name: "grep", args: { pattern: "needle", path: ".env" } });
    expect(denied.status).toBe("rejected");
    expect(denied.content).not.toContain("API_KEY");
    await runner.close();
    const allowed = makeRunner(sb.ws, backend, { approval: "safe", rules: { allow: ["grep(.env)"] } });
    const ok = await allowed.run({ name: "grep", args: { pattern: "needle", path: ".env" } });
    expect(ok.status).toBe("success");
    expect(ok.content).toBe(".env:1: API_KEY=needle");
    await allowed.close();
  });

  it("reports INVALID_PATH through the runner for a root outside the workspace", async () => {
    const runner = makeRunner(sb.ws, backend);
    for (const name of ["grep", "glob", "search_files"]) {
      const outcome = await runner.run({ name, args: { pattern: "x", path: "../outside" } });
      expect(outcome.status).toBe("error");
      expect(outcome.error?.code).toBe("INVALID_PATH");
    }
    await runner.close();
  });

  it("stops on abort and leaves no ripgrep process behind", async () => {
    const files: Record<string, string> = {};
    const body = `${"line with some words and a needle here\n".repeat(400)}`;
    for (let i = 0; i < 1500; i++) files[`t/d${i % 30}/f${i}.txt`] = body;
    sb.write(files);
    const controller = new AbortController();
    const running = grepTool.execute({ pattern: "n[e]+dle" } as never, { ...sb.ctx, signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    const err = await failure(running);
    expect(err.code).toBe("CANCELLED");
    if (backend === "ripgrep") {
      // The kill is asynchronous; give the group a moment to go.
      for (let i = 0; i < 50 && (await ripgrepChildren()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await ripgrepChildren()).toEqual([]);
    }
    const globErr = await failure(globTool.execute({ pattern: "**/*" } as never, { ...sb.ctx, signal: AbortSignal.abort() }));
    expect(globErr.code).toBe("CANCELLED");
  });
});

describe("a pathological pattern on the built-in engine", () => {
  it("can still be cancelled: the search runs in a worker thread that abort terminates", async () => {
    const sandbox = makeSandbox();
    try {
      // (a|aa)+$ backtracks exponentially on a run of a's that does not end the line.
      sandbox.write({ "evil.txt": `${"a".repeat(60)}b\n` });
      const tool = createGrepTool({ backend: "builtin" });
      const controller = new AbortController();
      const started = Date.now();
      const running = tool.execute({ pattern: "^(a|aa)+$" } as never, { ...sandbox.ctx, signal: controller.signal });
      setTimeout(() => controller.abort(), 300);
      const err = await failure(running);
      expect(err.code).toBe("CANCELLED");
      // Not a timing assertion on speed: only that abort was honoured rather than the match finishing.
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      sandbox.cleanup();
    }
  });
});

describe("the built-in engine's worker threads", () => {
  it("are reused by later searches: each gets its own answer, also after a cancelled one and side by side", async () => {
    const sandbox = makeSandbox();
    try {
      sandbox.write({ "evil.txt": `${"a".repeat(60)}b\n`, "notes.txt": "alpha one\nbeta two\n", "more.txt": "alpha three\n" });
      const tool = createGrepTool({ backend: "builtin" });
      const grep = (pattern: string, signal?: AbortSignal) =>
        tool.execute({ pattern } as never, { ...sandbox.ctx, ...(signal ? { signal } : {}) });
      expect((await grep("alpha")).content).toBe("more.txt:1: alpha three\nnotes.txt:1: alpha one");
      expect((await grep("beta")).content).toBe("notes.txt:2: beta two");
      const controller = new AbortController();
      const running = grep("^(a|aa)+$", controller.signal);
      setTimeout(() => controller.abort(), 200);
      expect((await failure(running)).code).toBe("CANCELLED");
      // The cancelled search's thread was ended, not handed to the next search.
      const [a, b, c] = await Promise.all([grep("alpha"), grep("two"), grep("three")]);
      expect(a.content).toBe("more.txt:1: alpha three\nnotes.txt:1: alpha one");
      expect(b.content).toBe("notes.txt:2: beta two");
      expect(c.content).toBe("more.txt:1: alpha three");
    } finally {
      sandbox.cleanup();
    }
  });
});

describe("search tool metadata", () => {
  it("declares read effect, a path scope and reads of the resolved root", async () => {
    const sandbox = makeSandbox();
    try {
      mkdirSync(path.join(sandbox.ws, "src"));
      for (const tool of [createGrepTool(), createGlobTool()]) {
        expect(tool.effect).toBe("read");
        expect(tool.scope?.kind).toBe("path");
        // A call's hooks share one memo, as the runner gives them.
        const ctx = { ...sandbox.ctx, memo: new CallMemo() } as never;
        expect(await tool.scope!.subjects({ pattern: "x", path: "./src/" } as never, ctx)).toEqual(["src"]);
        expect(await tool.access!({ pattern: "x" } as never, ctx)).toEqual({ reads: ["."] });
      }
    } finally {
      sandbox.cleanup();
    }
  });

  it.skipIf(!HAS_RG)("forcing ripgrep where it is missing is UNAVAILABLE, auto falls back", async () => {
    const sandbox = makeSandbox();
    const saved = process.env.PATH;
    try {
      sandbox.write({ "a.txt": "x\n" });
      process.env.PATH = "/nonexistent";
      const forced = await failure(createGrepTool({ backend: "ripgrep" }).execute({ pattern: "x" } as never, sandbox.ctx));
      expect(forced.code).toBe("UNAVAILABLE");
      const auto = await createGrepTool({ backend: "auto" }).execute({ pattern: "x" } as never, sandbox.ctx);
      expect(auto.content).toBe("a.txt:1: x");
      expect(auto.metadata).toMatchObject({ engine: "builtin" });
    } finally {
      process.env.PATH = saved;
      sandbox.cleanup();
    }
  });
});

describe("the fast secret-file check", () => {
  it("agrees with the sensitive globs themselves on secret-looking and ordinary paths", async () => {
    const { isSensitivePath, SENSITIVE_PATTERNS, SENSITIVE_FOLDERS } = await import("../../../src/workspace/sensitive.js");
    const { default: picomatch } = await import("picomatch");
    // The check as written in the patterns, without the literal-text shortcut.
    const globs = picomatch([...SENSITIVE_PATTERNS], { dot: true, nocase: true });
    const templates = picomatch(["**/.env.example", "**/.env.sample", "**/.env.template"], { dot: true });
    const oracle = (s: string) =>
      !templates(s) && (globs(s) || globs(`${s}/`) || s.split("/").some((part) => SENSITIVE_FOLDERS.includes(part)));
    const samples = new Set<string>([
      ".env",
      "a/.env",
      ".ENV",
      "x/.env.local",
      ".env.example",
      "prod.env",
      ".envrc",
      "credentials.json",
      "x/credentials",
      "client_secret_1.json",
      "service-account-x.json",
      ".aws/config",
      "deep/.aws/credentials",
      ".ssh/id_ed25519",
      "home/.SSH/known_hosts",
      ".gnupg/pubring.kbx",
      ".kube/config",
      ".docker/config.json",
      ".netrc",
      ".npmrc",
      ".pypirc",
      ".git-credentials",
      "id_rsa.pub",
      "keys/server.PEM",
      "tls.key",
      "cert.p12",
      "cert.pfx",
      ".gmail-tokens/t.json",
      ".calendar-tokens/t",
      "secrets.yaml",
      "src/secrets.ts",
      "src/keyboard.ts",
      "docs/environment.md",
      "src/credentials-form.tsx",
      "pkg/mod/file.ts",
      "README.md",
      "a/b/c/d.json",
    ]);
    // Every pattern with its wildcards filled in, at the root and deeper.
    for (const p of SENSITIVE_PATTERNS) {
      const filled = p
        .replace(/^\*\*\//, "")
        .replace(/\*\*/g, "x/y")
        .replace(/\*/g, "abc");
      samples.add(filled);
      samples.add(`deep/dir/${filled}`);
      samples.add(filled.toUpperCase());
    }
    for (const s of samples) expect(isSensitivePath(s), s).toBe(oracle(s));
  });
});
