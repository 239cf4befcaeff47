import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { splitLikeEnv } from "../../../src/tools/shell/analysis/env-split.js";
import { seeded } from "./helpers.js";

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-env-split-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Prints the arguments it was given, each ended by a NUL.
const printer = path.join(dir, "argv");
writeFileSync(printer, '#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done\n');
chmodSync(printer, 0o755);

/** What GNU env makes of the string: the words it passes on, or "error" where it refuses to run anything. */
function envSplit(text: string): string[] | "error" {
  const r = spawnSync("/usr/bin/env", ["-S", `${printer} ${text}`], { encoding: "utf8", env: { X: "xv", PATH: "/usr/bin:/bin" } });
  if (r.status !== 0) return "error";
  return r.stdout.split("\0").slice(0, -1);
}

/** Whether tackle's reading is env's: the same words, where each `${X}` of a word known only at run time may be X's value. */
function agrees(text: string): boolean {
  const ours = splitLikeEnv(text);
  const theirs = envSplit(text);
  if (!ours || theirs === "error") return !ours && theirs === "error";
  return (
    ours.length === theirs.length &&
    ours.every((w, i) => {
      if (!w.dynamic) return w.text === theirs[i];
      const pattern = w.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("\\$\\{X\\}", "(?:\\$\\{X\\}|xv)");
      return new RegExp(`^${pattern}$`).test(theirs[i]!);
    })
  );
}

const CHARS = ["a", "b", " ", "\t", "'", '"', "\\", "_", "c", "#", "$", "{", "}", "X", "n", "q", "t", "\n"];

/** Generated from a fixed seed, so a failure names a string that fails again. */
function* generated(count: number): Generator<string> {
  const next = seeded(31);
  for (let i = 0; i < count; i++) {
    let text = "";
    for (let k = 1 + next(10); k > 0; k--) text += next(6) === 0 ? "${X}" : CHARS[next(CHARS.length)]!;
    yield text;
  }
}

const HAND = [
  "a b",
  "'a b' c",
  '"a\\"b"',
  "a\\_b",
  '"a\\_b"',
  "a#b #c",
  "'\\q'",
  "'a\\nb'",
  "a\\nb",
  "${X}y",
  "'${X}'",
  '"${X}"',
  "$X",
  "a\\c b",
  '"a\\c"',
  "'open",
  "a\\",
  '"\\$x"',
  "'\\''",
  "\\#x",
  "''",
  '""',
  "x\\'y",
  "-u X rm -f a",
  "\\c",
  "#",
  "a\nb",
  "a\rb c\vd\fe",
  "\n\ta b",
];

describe.skipIf(spawnSync("/usr/bin/env", ["-S", "true"]).status !== 0)("env -S strings are split as GNU env splits them", () => {
  it.each(HAND.map((t) => [JSON.stringify(t), t]))("%s", (_, text) => expect(agrees(text), JSON.stringify(envSplit(text))).toBe(true));

  it("agrees on 400 generated strings of quotes, escapes, blanks, comments and ${VAR}", () => {
    const differ = [...generated(400)].filter((t) => !agrees(t));
    expect(differ.map((t) => ({ text: t, ours: splitLikeEnv(t)?.map((w) => w.text), env: envSplit(t) }))).toEqual([]);
  });
});
