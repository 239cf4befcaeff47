import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "./run-cli.js";
import { tempDir } from "../support/tools.js";

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../README.md");

/** The commands in the README's "The command line" block, without their comments. */
function readmeCommands(): string[] {
  const text = readFileSync(README, "utf8");
  const section = text.slice(text.indexOf("## The command line"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#\s.*$/, "").trim())
    .filter(Boolean);
}

let ws: ReturnType<typeof tempDir>;
beforeAll(() => {
  ws = tempDir();
  copyFileSync(README, path.join(ws.dir, "README.md"));
});
afterAll(() => ws.cleanup());

describe("the README's command line section", () => {
  const commands = readmeCommands();
  // Servers run until stopped; they have their own tests.
  const runnable = commands.filter((c) => !/^npx tackle (mcp|serve)\b/.test(c));

  it("lists the commands people need", () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(runnable.some((c) => c.includes("completion bash"))).toBe(true);
  });

  it.each(runnable.map((c) => [c]))(
    "%s runs as written",
    (command) => {
      const line = command.replace(/npx tackle/g, "tackle");
      const script = `tackle() { "${process.execPath}" "${CLI}" "$@"; }\n${line.startsWith("source") ? `${line} && complete -p tackle` : line}`;
      const r = spawnSync("bash", ["--norc", "-c", script], { cwd: ws.dir, encoding: "utf8", timeout: 60_000 });
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
    },
    90_000,
  );
});
