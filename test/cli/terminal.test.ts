import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inTerminal } from "./pty.js";
import { spawn } from "node:child_process";
import { CLI, runCli } from "./run-cli.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "a.txt"), "alpha\nbeta\n");
});
afterEach(() => ws.cleanup());

const ESC = "\u001b[";

describe("tackle call in a terminal", () => {
  it("takes a single key at the approval prompt, without Enter", async () => {
    const t = inTerminal(["call", "write_file", "path=b.txt", "content=hi", "--approval", "ask", "--workspace", ws.dir]);
    await t.waitFor(/Approve\?.*\[s\]ave.*: $/);
    t.type("y");
    await t.waitFor(/: y\n/);
    expect(await t.exited, t.screen()).toBe(0);
    expect(readFileSync(path.join(ws.dir, "b.txt"), "utf8")).toBe("hi");
  }, 90_000);

  it("shows progress as one status line redrawn in place, taken away before output and at the end", async () => {
    const t = inTerminal(
      ["call", "shell", "command=printf 'a\\n'; sleep 1.2; printf 'b\\n'; sleep 1.2", "--approval", "all", "--workspace", ws.dir],
      { env: { TACKLE_PROGRESS_MS: "200", NO_COLOR: "1" } },
    );
    expect(await t.exited, t.screen()).toBe(0);
    const screen = t.screen();
    expect(screen).toMatch(/… running/);
    // Each status is replaced (\r, erase line), never ended with a newline of its own.
    expect(screen).not.toMatch(/so far\n/);
    expect(screen).toMatch(/\r\u001b\[2K/);
    expect(screen.replace(/\r\u001b\[2K(… [^\r\n]*)?/g, "")).toMatch(/a\nb\n/);
  }, 90_000);

  it("e opens the editor on the arguments as pretty JSON; a mistake is shown and e opens the text again", async () => {
    writeFileSync(path.join(ws.dir, "b.txt"), "old\n");
    await runCli(["call", "read_file", "path=b.txt", "--workspace", ws.dir]); // as a model would before replacing it
    // An "editor" that first breaks the JSON, then (run again on the person's text) mends it and edits it.
    const editor = path.join(ws.dir, "editor.sh");
    writeFileSync(
      editor,
      '#!/bin/sh\nif grep -q BROKEN "$1"; then sed -i -e "s/BROKEN//" -e "s/\\"hi\\"/\\"edited\\"/" "$1"; else printf BROKEN >> "$1"; fi\n',
      { mode: 0o755 },
    );
    const t = inTerminal(["call", "write_file", "path=b.txt", "content=hi", "--approval", "ask", "--workspace", ws.dir], {
      env: { EDITOR: editor, VISUAL: "" },
    });
    await t.waitFor(/Approve\?.*: $/);
    t.type("e");
    await t.waitFor(/Not used.*not valid JSON.*e opens your text again/s);
    t.type("e");
    // The new diff is shown, and the edited call runs on y.
    await t.waitFor(/New arguments:[\s\S]*\+edited[\s\S]*Approve\?.*: $/);
    t.type("y");
    expect(await t.exited, t.screen()).toBe(0);
    expect(readFileSync(path.join(ws.dir, "b.txt"), "utf8")).toBe("edited");
  }, 90_000);

  it("offers only what means something for one call (no 'always, this session'), and Esc rejects", async () => {
    const t = inTerminal(["call", "write_file", "path=b.txt", "content=hi", "--approval", "ask", "--workspace", ws.dir]);
    await t.waitFor(/Approve\?.*: $/);
    expect(t.screen()).toMatch(/\[n\]o \(Esc\)/);
    expect(t.screen()).not.toMatch(/\[a\]lways|\[w\]ider/);
    t.type("a");
    await t.waitFor(/Answer y, n, s, e or \?/);
    t.type("\u001b");
    await t.waitFor(/Esc\n/);
    expect(await t.exited, t.screen()).toBe(3);
    expect(existsSync(path.join(ws.dir, "b.txt"))).toBe(false);
  }, 90_000);

  it("saves 'always' as the narrowest rule in the configuration, keeping its comments, and uses it next time", async () => {
    const config = path.join(ws.dir, "tackle.config.json");
    writeFileSync(config, '{\n  // my notes stay\n  "approval": "safe",\n}\n');
    const t = inTerminal(["call", "shell", "command=touch made.txt", "--workspace", ws.dir]);
    await t.waitFor(/Approve\?/);
    t.type("s");
    await t.waitFor(/Saved\S* to \S*tackle\.config\.json \(permissions\.allow\): shell\(touch made\.txt\)/);
    expect(await t.exited, t.screen()).toBe(0);
    expect(existsSync(path.join(ws.dir, "made.txt"))).toBe(true);
    const text = readFileSync(config, "utf8");
    expect(text).toContain("// my notes stay");
    expect(text).toMatch(/"allow": \[\s*"shell\(touch made\.txt\)"\s*\]/);
    // Next run, with nobody to ask: the saved rule lets it run.
    const again = await runCli(["call", "shell", "command=touch made.txt", "--workspace", ws.dir]);
    expect(again.code, again.stderr).toBe(0);
    const other = await runCli(["call", "shell", "command=touch other.txt", "--workspace", ws.dir]);
    expect(other.code).toBe(3);
  }, 90_000);

  it("colours status words and diffs in a terminal; none with NO_COLOR", async () => {
    const t = inTerminal(["call", "read_file", "path=nope.txt", "--workspace", ws.dir]);
    expect(await t.exited).toBe(1);
    expect(t.screen()).toContain(`${ESC}1m${ESC}31mFailed`);
    await runCli(["call", "read_file", "path=a.txt", "--workspace", ws.dir]);
    const edit = inTerminal(["call", "edit_file", "path=a.txt", "old=beta", "new=gamma", "--approval", "ask", "--workspace", ws.dir]);
    await edit.waitFor(/Approve\?/);
    expect(edit.screen()).toContain(`${ESC}31m-beta`);
    expect(edit.screen()).toContain(`${ESC}32m+gamma`);
    edit.type("n");
    await edit.waitFor(/Message for the model/);
    edit.type("\r");
    expect(await edit.exited).toBe(3);
    expect(edit.screen()).toMatch(/Not run.*: you declined/);
    const plain = inTerminal(["call", "read_file", "path=nope.txt", "--workspace", ws.dir], { env: { NO_COLOR: "1" } });
    expect(await plain.exited).toBe(1);
    expect(plain.screen()).toMatch(/^Failed: The file "nope.txt" does not exist/m);
    expect(plain.screen()).not.toContain(ESC);
  }, 90_000);

  it("prints shell output as it arrives; Ctrl-C stops the command, keeps the output and says so", async () => {
    const t = inTerminal(["call", "shell", "command=echo started; sleep 30; echo never", "--approval", "all", "--workspace", ws.dir]);
    await t.waitFor(/started/);
    t.type("\u0003");
    expect(await t.exited).toBe(130);
    expect(t.screen()).toMatch(/started\n[\s\S]*Cancelled/);
    expect(t.screen()).not.toContain("never");
  }, 90_000);
});

describe("the single-key prompt", () => {
  it("? explains, e edits the arguments on a line of their own, and the edit runs", async () => {
    const t = inTerminal(["call", "write_file", "path=b.txt", "content=hi", "--approval", "ask", "--workspace", ws.dir]);
    await t.waitFor(/Approve\?.*: $/);
    t.type("?");
    await t.waitFor(/Keys: y run it once/);
    // The description is shown for a person: code spans highlighted, not in raw backticks.
    expect(t.screen()).toContain("content");
    expect(t.screen()).not.toContain("`path`");
    await t.waitFor(/Approve\?[^\n]*: $/);
    t.type("e");
    await t.waitFor(/New arguments as JSON: $/);
    t.type('{"path":"c.txt","content":"edited"}\r');
    await t.waitFor(/New arguments:[\s\S]*\+edited[\s\S]*Approve\?[^\n]*: $/);
    t.type("y");
    expect(await t.exited, t.screen()).toBe(0);
    expect(readFileSync(path.join(ws.dir, "c.txt"), "utf8")).toBe("edited");
    expect(existsSync(path.join(ws.dir, "b.txt"))).toBe(false);
  }, 90_000);

  it("Ctrl-C at the prompt cancels the call (exit 130) rather than declining it", async () => {
    const t = inTerminal(["call", "write_file", "path=b.txt", "content=hi", "--approval", "ask", "--workspace", ws.dir]);
    await t.waitFor(/Approve\?.*: $/);
    t.type("\u0003");
    expect(await t.exited, t.screen()).toBe(130);
    expect(t.screen()).toMatch(/Cancelled/);
    expect(existsSync(path.join(ws.dir, "b.txt"))).toBe(false);
  }, 90_000);
});

describe("tackle call without a terminal", () => {
  it("uses no colour when piped, unless FORCE_COLOR says so", async () => {
    const piped = await runCli(["call", "read_file", "path=nope.txt", "--workspace", ws.dir]);
    expect(piped.code).toBe(1);
    expect(piped.stderr).not.toContain(ESC);
    const forced = await runCli(["call", "read_file", "path=nope.txt", "--workspace", ws.dir], { env: { FORCE_COLOR: "1", NO_COLOR: "" } });
    expect(forced.stderr).toContain(ESC);
  }, 120_000);

  it("a refusal says which rule to remove, or which to add", async () => {
    writeFileSync(path.join(ws.dir, ".env"), "KEY=1\n");
    const secret = await runCli(["call", "read_file", "path=.env", "--workspace", ws.dir]);
    expect(secret.code).toBe(3);
    expect(secret.stderr).toMatch(/^Refused: read_file was not run: /m);
    expect(secret.stderr).toContain("tackle rules add 'read_file(.env)'");
    writeFileSync(path.join(ws.dir, "tackle.config.json"), '{ "permissions": { "deny": ["read_file(a.txt)"] } }');
    const denied = await runCli(["call", "read_file", "path=a.txt", "--workspace", ws.dir]);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain("tackle rules remove 'read_file(a.txt)'");
  }, 120_000);

  it("explains a rejection to a person, with the exact rule that would allow it; --json keeps the model's text", async () => {
    const r = await runCli(["call", "shell", "command=touch made.txt", "--workspace", ws.dir]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Not run: shell needs approval .*no terminal is attached/);
    expect(r.stderr).toContain("tackle rules add 'shell(touch made.txt)'");
    expect(r.stderr).not.toMatch(/Do not repeat/);
    const json = await runCli(["call", "shell", "command=touch made.txt", "--json", "--workspace", ws.dir]);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "rejected", content: expect.stringMatching(/Do not repeat/) });
  }, 120_000);
});

describe("temporary folders", () => {
  it("none are left behind, after a normal run, a failure or a SIGTERM", async () => {
    const tmp = tempDir();
    try {
      const env = { TMPDIR: tmp.dir };
      expect((await runCli(["tools", "--workspace", ws.dir], { env })).code).toBe(0);
      expect((await runCli(["call", "read_file", "path=nope.txt", "--workspace", ws.dir], { env })).code).toBe(1);
      const ended = await runCli(["call", "shell", "command=echo hi; exit 3", "--approval", "all", "--workspace", ws.dir], { env });
      expect(ended.stdout).toBe("hi\n");
      expect(ended.stderr).toMatch(/exit code 3/);
      const t = inTerminal(["call", "shell", "command=echo started; sleep 30", "--approval", "all", "--workspace", ws.dir], { env });
      await t.waitFor(/started/);
      t.type("\u0003");
      await t.exited;
      expect(readdirSync(tmp.dir).filter((n) => n.startsWith("tackle-output-"))).toEqual([]);
      const child = spawn(
        process.execPath,
        [CLI, "call", "shell", "command=echo started; sleep 30", "--approval", "all", "--workspace", ws.dir],
        {
          env: { ...process.env, ...env },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      await new Promise<void>((resolve) => child.stdout.on("data", (d) => String(d).includes("started") && resolve()));
      child.kill("SIGTERM");
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect(code).toBe(130);
      expect(readdirSync(tmp.dir).filter((n) => n.startsWith("tackle-output-"))).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  }, 90_000);
});
