import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MODES, approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { createRegistry } from "../../../src/tools/builtin.js";
import { fileTools } from "../../../src/tools/fs/index.js";
import { completeContext } from "../../../src/core/context.js";

let sb: Sandbox;
const at = (...p: string[]) => path.join(sb.ws, ...p);

beforeEach(() => {
  sb = makeSandbox();
  writeFileSync(at(".env"), "API_KEY=sk-live-123");
  writeFileSync(at(".env.example"), "API_KEY=");
  mkdirSync(at(".ssh"));
  writeFileSync(at(".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----");
  mkdirSync(at(".aws"));
  writeFileSync(at(".aws", "credentials"), "[default]\naws_secret_access_key=x");
  writeFileSync(at("id_ed25519"), "key");
  writeFileSync(at("server.pem"), "pem");
  writeFileSync(at("notes.txt"), "plain notes");
  symlinkSync(".env", at("innocent.txt"));
  symlinkSync("notes.txt", at(".env.local"));
  mkdirSync(at("config"));
  symlinkSync("../.ssh", at("config", "keys"));
});
afterEach(() => sb.cleanup());

describe("sensitive files (policy)", () => {
  const secrets = [
    ".env",
    ".ssh/id_rsa",
    ".aws/credentials",
    "id_ed25519",
    "server.pem",
    "innocent.txt",
    "config/keys/id_rsa",
    ".env.local",
  ];

  for (const mode of MODES) {
    it(`denies reading and writing secrets, even through a symlink or as a file URI, in mode ${mode}`, async () => {
      const runner = makeRunner(sb.ws, { approval: mode });
      const problems: string[] = [];
      for (const p of [...secrets, ...secrets.map((s) => pathToFileURL(at(s)).href)]) {
        for (const call of [
          { name: "read_file", args: { path: p } },
          { name: "write_file", args: { path: p, content: "x" } },
          { name: "edit_file", args: { path: p, old: "a", new: "b" } },
          { name: "copy_file", args: { source: p, dest: "leak.txt" } },
          { name: "move_file", args: { from: p, to: "leak2.txt" } },
          { name: "delete_file", args: { path: p } },
        ]) {
          const out = await runner.run(call);
          if (out.status !== "rejected" || out.error?.code !== "PERMISSION_DENIED")
            problems.push(`${call.name}(${p}) -> ${out.status} ${out.content.slice(0, 120)}`);
        }
      }
      expect(problems).toEqual([]);
      expect(readFileSync(at(".env"), "utf8")).toBe("API_KEY=sk-live-123");
      expect(existsSync(at("leak.txt")) || existsSync(at("leak2.txt"))).toBe(false);
      await runner.close();
    });
  }

  it("says how configuration can allow it", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    const out = await runner.run({ name: "read_file", args: { path: ".env" } });
    expect(out.content).toContain("may hold secrets");
    expect(out.content).toContain('permissions.allow: ["read_file(.env)"]');
    const listing = await runner.run({ name: "list_directory", args: { path: "config/keys" } });
    expect(listing.status).toBe("rejected");
    await runner.close();
  });

  it("allows a secret when a rule names it, and only that one", async () => {
    const runner = makeRunner(sb.ws, { approval: "safe", rules: { allow: ["read_file(.env)"] } });
    const out = await runner.run({ name: "read_file", args: { path: ".env" } });
    expect(out.status).toBe("success");
    expect(out.content).toContain("sk-live-123");
    expect(out.approvedBy).toBe("config");
    expect((await runner.run({ name: "read_file", args: { path: ".ssh/id_rsa" } })).status).toBe("rejected");
    // The rule names the real file, and a link to it leads to the same content.
    expect((await runner.run({ name: "read_file", args: { path: "innocent.txt" } })).status).toBe("success");
    // A link whose own name is a secret's stays denied unless that name is allowed too.
    expect((await runner.run({ name: "read_file", args: { path: ".env.local" } })).status).toBe("rejected");
    await runner.close();
  });

  it("a rule written for edit_file covers the edit alias", async () => {
    const runner = makeRunner(sb.ws, { approval: "all", rules: { allow: ["edit_file(.env)"] } });
    const out = await runner.run({ name: "edit", args: { path: ".env", old_string: "sk-live-123", new_string: "rotated" } });
    expect(out.status).toBe("success");
    expect(readFileSync(at(".env"), "utf8")).toBe("API_KEY=rotated");
    await runner.close();
  });

  it("template files like .env.example are not secrets", async () => {
    const runner = makeRunner(sb.ws, { approval: "safe", approver: undefined });
    expect((await runner.run({ name: "read_file", args: { path: ".env.example" } })).status).toBe("success");
    await runner.close();
  });

  it("path rules see resolved paths: deny and ask rules apply through links", async () => {
    mkdirSync(at("private"));
    writeFileSync(at("private", "plan.md"), "plan");
    symlinkSync("private/plan.md", at("public.md"));
    const approver = approveAll();
    const runner = makeRunner(sb.ws, {
      approval: "all",
      approver,
      rules: { deny: ["read_file(private/**)"], ask: ["write_file(docs/**)"] },
    });
    expect((await runner.run({ name: "read_file", args: { path: "private/plan.md" } })).status).toBe("rejected");
    expect((await runner.run({ name: "read_file", args: { path: "public.md" } })).status).toBe("rejected");
    expect((await runner.run({ name: "read_file", args: { path: "notes.txt" } })).status).toBe("success");
    await runner.run({ name: "write_file", args: { path: "docs/a.md", content: "x" } });
    expect(approver.requests.map((r) => r.tool)).toEqual(["write_file"]);
    await runner.close();
  });

  it("scope subjects are resolved, workspace-relative paths", async () => {
    const tools = new Map((await fileTools({ config: {}, env: {}, workspace: sb.ws, logger: console as never })).map((t) => [t.name, t]));
    const ctx = completeContext(sb.ctx) as never;
    expect(await tools.get("read_file")!.scope!.subjects({ path: "innocent.txt" }, ctx)).toEqual([".env", "innocent.txt"]);
    expect(await tools.get("read_file")!.scope!.subjects({ path: "./notes.txt" }, ctx)).toEqual(["notes.txt"]);
    expect(await tools.get("move_file")!.scope!.subjects({ from: "notes.txt", to: "a/b.txt" }, ctx)).toEqual(["notes.txt", "a/b.txt"]);
    expect(await tools.get("copy_file")!.scope!.subjects({ source: "config/keys/id_rsa", dest: "x" }, ctx)).toEqual([
      ".ssh/id_rsa",
      "config/keys/id_rsa",
      "x",
    ]);
    expect(await tools.get("write_file")!.access!({ path: "sub/../notes.txt", content: "" }, ctx)).toEqual({ writes: ["notes.txt"] });
    expect(await tools.get("read_file")!.access!({ path: "notes.txt" }, ctx)).toEqual({ reads: ["notes.txt"] });
  });
});

describe("protected files", () => {
  beforeEach(() => {
    writeFileSync(at("tackle.config.json"), "{}");
    mkdirSync(at(".git", "hooks"), { recursive: true });
    writeFileSync(at(".git", "config"), "[core]");
    writeFileSync(at(".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n");
    symlinkSync(".git/hooks/pre-commit", at("hook-link"));
  });

  for (const mode of MODES) {
    it(`are never written, in mode ${mode}`, async () => {
      const runner = makeRunner(sb.ws, { approval: mode });
      const problems: string[] = [];
      const calls = [
        { name: "write_file", args: { path: "tackle.config.json", content: '{"permissions":{"allow":["*"]}}' } },
        { name: "write_file", args: { path: "config.json", content: "{}" } },
        { name: "write_file", args: { path: ".git/hooks/post-checkout", content: "#!/bin/sh\ncurl evil" } },
        { name: "write_file", args: { path: ".git/config", content: "[core]\nfsmonitor=evil" } },
        { name: "write_file", args: { path: "hook-link", content: "pwned" } },
        { name: "write_file", args: { path: ".tackle/state.json", content: "{}" } },
        { name: "append_file", args: { path: ".git/config", content: "\n[alias]\nx=!evil" } },
        { name: "edit_file", args: { path: "tackle.config.json", old: "{}", new: '{"a":1}' } },
        { name: "edit_file", args: { path: ".git/hooks/pre-commit", old: "exit 0", new: "evil" } },
        { name: "delete_file", args: { path: ".git/config" } },
        { name: "delete_file", args: { path: ".git/hooks", recursive: true } },
        { name: "delete_file", args: { path: ".git", recursive: true } },
        { name: "move_file", args: { from: "notes.txt", to: ".git/hooks/pre-push" } },
        { name: "move_file", args: { from: ".git/config", to: "config.bak" } },
        { name: "move_file", args: { from: "notes.txt", to: "tackle.config.json", overwrite: true } },
        { name: "copy_file", args: { source: "notes.txt", dest: ".git/hooks/pre-push" } },
        { name: "copy_file", args: { source: "notes.txt", dest: ".git/config", overwrite: true } },
        { name: "create_directory", args: { path: ".git/hooks/sub" } },
        { name: "write_file", args: { path: ".GIT/HOOKS/pre-push", content: "x" } },
      ];
      for (const call of calls) {
        const out = await runner.run(call);
        if (out.error?.code !== "PERMISSION_DENIED")
          problems.push(`${call.name} ${JSON.stringify(call.args)} -> ${out.status}: ${out.content.slice(0, 120)}`);
      }
      expect(problems).toEqual([]);
      expect(readFileSync(at("tackle.config.json"), "utf8")).toBe("{}");
      expect(readFileSync(at(".git", "config"), "utf8")).toBe("[core]");
      expect(readFileSync(at(".git", "hooks", "pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n");
      expect(existsSync(at(".git", "hooks", "pre-push"))).toBe(false);
      await runner.close();
    });
  }

  it("can still be read", async () => {
    const runner = makeRunner(sb.ws, { approval: "safe" });
    expect((await runner.run({ name: "read_file", args: { path: ".git/config" } })).status).toBe("success");
    await runner.close();
  });
});

describe("registration", () => {
  it("the group gives every file tool, with its effect, and edit resolves to edit_file", async () => {
    const tools = await fileTools({ config: {}, env: {}, workspace: sb.ws, logger: console as never });
    expect(Object.fromEntries(tools.map((t) => [t.name, t.effect]))).toEqual({
      read_file: "read",
      write_file: "write",
      append_file: "write",
      edit_file: "write",
      multi_edit: "write",
      apply_patch: "write",
      delete_file: "destructive",
      move_file: "write",
      copy_file: "write",
      create_directory: "write",
      list_directory: "read",
    });
    const registry = await createRegistry({ config: {}, env: {}, workspace: sb.ws } as never, { groups: [fileTools] });
    expect(registry.get("edit")?.name).toBe("edit");
    expect(registry.canonicalName("edit")).toBe("edit_file");
    for (const t of tools) {
      expect(t.description.length).toBeGreaterThan(80);
      expect(t.inputSchema.type).toBe("object");
    }
    expect((tools.find((t) => t.name === "read_file")!.outputSchema as { required: string[] }).required).toEqual([
      "content",
      "size",
      "modified",
    ]);
  });
});
