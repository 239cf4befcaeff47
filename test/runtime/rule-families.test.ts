// A deny or ask rule names one tool; the call that gets around it uses another tool that does the
// same thing (bash for shell, edit_file or apply_patch for write_file, a redirection for a write).
// Each call below is refused (or asked about) and the file is left as it was.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistry } from "../../src/tools/builtin.js";
import { loadConfig } from "../../src/config/config.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import type { ToolRegistry } from "../../src/registry/registry.js";

let dir: string;
let registry: ToolRegistry;
beforeAll(async () => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-families-")));
  writeFileSync(path.join(dir, "notes.txt"), "hello\n");
  registry = await createRegistry(loadConfig({ workspace: dir }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATCH = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+changed\n";

async function runnerWith(rules: { deny?: string[]; ask?: string[] }): Promise<ToolRunner> {
  return new ToolRunner({ registry, workspace: dir, approval: "all", rules, cache: false });
}

describe("a deny rule covers every tool that does what it names", () => {
  it.each([
    ["edit_file", { path: "notes.txt", old_string: "hello", new_string: "changed" }],
    ["multi_edit", { path: "notes.txt", edits: [{ old_string: "hello", new_string: "changed" }] }],
    ["apply_patch", { patch: PATCH }],
    ["append_file", { path: "notes.txt", content: "more\n" }],
    ["delete_file", { path: "notes.txt" }],
    ["move_file", { from: "notes.txt", to: "moved.txt" }],
    ["shell", { command: "echo changed > notes.txt" }],
    ["bash", { command: "printf changed >> notes.txt" }],
  ])("write_file(notes.txt) stops %s", async (name, args) => {
    const runner = await runnerWith({ deny: ["write_file(notes.txt)"] });
    try {
      const outcome = await runner.run({ name, args });
      expect(outcome.error?.code, outcome.content).toBe("PERMISSION_DENIED");
      expect(outcome.content).toContain('"write_file(notes.txt)"');
      expect(readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("hello\n");
      expect(existsSync(path.join(dir, "moved.txt"))).toBe(false);
    } finally {
      await runner.close();
    }
  });

  it.each(["shell", "bash", "shell_exec", "shell_background"])("shell(rm *) stops %s", async (name) => {
    const runner = await runnerWith({ deny: ["shell(rm *)"] });
    try {
      const outcome = await runner.run({ name, args: { command: "rm -f notes.txt" } });
      expect(outcome.error?.code, outcome.content).toBe("PERMISSION_DENIED");
      expect(existsSync(path.join(dir, "notes.txt"))).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it("a rule against reading a file stops searching it and editing it; one against writing does not stop reading", async () => {
    const runner = await runnerWith({ deny: ["read_file(notes.txt)"] });
    try {
      expect((await runner.run({ name: "grep", args: { pattern: "hello", path: "notes.txt" } })).error?.code).toBe("PERMISSION_DENIED");
      expect((await runner.run({ name: "edit_file", args: { path: "notes.txt", old_string: "hello", new_string: "x" } })).error?.code).toBe(
        "PERMISSION_DENIED",
      );
    } finally {
      await runner.close();
    }
    const writes = await runnerWith({ deny: ["edit_file(notes.txt)"] });
    try {
      expect((await writes.run({ name: "read_file", args: { path: "notes.txt" } })).status).toBe("success");
      expect((await writes.run({ name: "write_file", args: { path: "notes.txt", content: "x" } })).error?.code).toBe("PERMISSION_DENIED");
    } finally {
      await writes.close();
    }
  });

  it("a rule naming a tool alone covers that tool; for commands, every tool that runs them", async () => {
    const runner = await runnerWith({ deny: ["delete_file", "list_directory", "shell"] });
    try {
      expect((await runner.getConfirmation("write_file", { path: "new.txt", content: "x" })).action).toBe("allow");
      expect((await runner.getConfirmation("read_file", { path: "notes.txt" })).action).toBe("allow");
      expect((await runner.getConfirmation("delete_file", { path: "notes.txt" })).action).toBe("deny");
      for (const name of ["bash", "shell_background", "shell_exec"]) {
        expect((await runner.getConfirmation(name, { command: "ls" })).action, name).toBe("deny");
      }
    } finally {
      await runner.close();
    }
  });

  it("ask rules widen the same way, allow rules do not", async () => {
    const asked: string[] = [];
    const runner = new ToolRunner({
      registry,
      workspace: dir,
      approval: "safe",
      rules: { ask: ["shell(git push*)"], allow: ["write_file(notes.txt)"] },
      approver: async (req) => {
        asked.push(req.tool);
        return { approved: false };
      },
    });
    try {
      expect((await runner.getConfirmation("bash", { command: "git push origin main" })).action).toBe("ask");
      // Allowing write_file(notes.txt) does not allow deleting it with another tool.
      expect((await runner.getConfirmation("write_file", { path: "notes.txt", content: "x" })).action).toBe("allow");
      expect((await runner.getConfirmation("delete_file", { path: "notes.txt" })).action).toBe("ask");
      expect((await runner.run({ name: "delete_file", args: { path: "notes.txt" } })).status).toBe("rejected");
      expect(asked).toEqual(["delete_file"]);
      expect(existsSync(path.join(dir, "notes.txt"))).toBe(true);
    } finally {
      await runner.close();
    }
  });
});
