import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
let script: string;
beforeAll(async () => {
  ws = tempDir();
  const r = await runCli(["completion", "bash", "--workspace", ws.dir], { timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  script = path.join(ws.dir, "tackle.bash");
  writeFileSync(script, r.stdout);
}, 90_000);
afterAll(() => ws.cleanup());

/** What real bash completes for the words typed so far (the last is the word being completed). */
function complete(...words: string[]): string[] {
  const line = ["tackle", ...words].map((w) => `'${w}'`).join(" ");
  const r = spawnSync(
    "bash",
    [
      "--norc",
      "-c",
      `source "$1"; COMP_WORDS=(${line}); COMP_CWORD=${words.length}; _tackle; printf '%s\\n' "\${COMPREPLY[@]}"`,
      "_",
      script,
    ],
    { encoding: "utf8" },
  );
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split("\n").filter(Boolean);
}

describe("tackle completion", () => {
  it("bash completes commands, flags, flag values, tool names and a tool's parameters", () => {
    expect(complete("")).toEqual(expect.arrayContaining(["tools", "call", "mcp", "serve", "init", "completion"]));
    expect(complete("ca")).toEqual(["call"]);
    expect(complete("call", "read_")).toEqual(["read_file"]);
    expect(complete("tools", "gre")).toEqual(["grep"]);
    expect(complete("call", "--toolset", "cod")).toEqual(["coding"]);
    expect(complete("call", "--toolset", "coding", "edi")).toEqual(expect.arrayContaining(["edit", "edit_file"]));
    expect(complete("call", "read_file", "li")).toEqual(["limit="]);
    expect(complete("call", "--approval", "")).toEqual(expect.arrayContaining(["ask", "safe", "all"]));
    expect(complete("tools", "--js")).toEqual(["--json"]);
    expect(complete("rules", "")).toEqual(["list", "add", "remove"]);
    expect(complete("rules", "add", "--list", "d")).toEqual(["deny"]);
  });

  it("zsh and fish scripts name the same commands and tools", async () => {
    const zsh = await runCli(["completion", "zsh", "--workspace", ws.dir], { timeoutMs: 60_000 });
    expect(zsh.stdout).toContain("bashcompinit");
    expect(zsh.stdout).toContain("complete -o default -F _tackle tackle");
    const fish = await runCli(["completion", "fish", "--workspace", ws.dir], { timeoutMs: 60_000 });
    expect(fish.stdout).toMatch(/-a call -d /);
    expect(fish.stdout).toMatch(/-l approval -r -a 'ask none safe all'/);
    expect(fish.stdout).toMatch(/__fish_seen_subcommand_from read_file" -a 'path= /);
    const wrong = await runCli(["completion", "tcsh"]);
    expect(wrong.code).toBe(2);
  }, 90_000);
});
