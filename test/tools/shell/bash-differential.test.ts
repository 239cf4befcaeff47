import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { analyzeCommand } from "../../../src/tools/shell/analysis/command-analysis.js";
import { fallbackCommands } from "../../../src/tools/shell/judgement/fallback.js";
import { plainCommands } from "../../../src/tools/shell/analysis/plain-words.js";
import { DISGUISES, EXPECTATIONS, RM_SPELLINGS } from "./corpus.js";

/**
 * bash itself as the reference: `declare -f` prints a function's body in bash's own canonical
 * form without running anything. The commands found in that form must all be found in the
 * original text too; if tree-sitter reads the original differently from bash (as it does
 * with `ls<newline>\rm`), a command bash would run goes missing and this fails.
 *
 * Each command goes in a function of its own, a batch of them to one bash (one bash a command made
 * this file the suite's slowest). A batch bash rejects (a command that is not valid bash, or one
 * that swallows the next function) is asked again one command at a time; undefined for a command
 * bash rejects alone.
 */
function canonicalAll(commands: readonly string[], batch = 40): Array<string | undefined> {
  const out: Array<string | undefined> = [];
  for (let at = 0; at < commands.length; at += batch) {
    const part = commands.slice(at, at + batch);
    const names = part.map((_, i) => `__tackle_probe${i}`);
    const script = part.map((c, i) => `${names[i]}() {\n${c}\n}\n`).join("") + `declare -f ${names.join(" ")}`;
    const r = spawnSync("/bin/bash", ["--norc", "--noprofile", "-c", script], { encoding: "utf8", timeout: 20_000 });
    const bodies = r.status === 0 ? bodiesOf(r.stdout, names) : undefined;
    if (bodies) out.push(...bodies);
    else if (part.length === 1) out.push(undefined);
    else out.push(...canonicalAll(part, 1));
  }
  return out;
}

/** Each named function's body in `declare -f` output, or undefined when one is missing. */
function bodiesOf(stdout: string, names: readonly string[]): Array<string | undefined> | undefined {
  const lines = stdout.split("\n");
  const starts = names.map((n) => lines.indexOf(`${n} () `));
  if (starts.some((s, i) => s < 0 || (i > 0 && s <= starts[i - 1]!))) return undefined;
  return names.map((_, i) => {
    const own = lines.slice(starts[i]! + 1, i + 1 < names.length ? starts[i + 1] : lines.length);
    const open = own.indexOf("{ ");
    const close = own.lastIndexOf("}");
    return open === -1 || close <= open ? undefined : own.slice(open + 1, close).join("\n");
  });
}

/**
 * Names the analysis finds; for text it cannot parse, also what the crude fallback finds (as the
 * policy does). And each command whose words are all known, as its name and arguments.
 */
async function names(command: string): Promise<{ ok: boolean; names: Set<string>; argvs: Set<string> }> {
  const a = await analyzeCommand(command, { cwd: "/ws", home: "/home/u" });
  const found = a.commands.filter((c) => !c.dynamicName).map((c) => c.name);
  if (!a.ok) found.push(...fallbackCommands(command).map((c) => c.name));
  const known = a.commands.filter(
    (c) => !c.dynamic && !c.dynamicName && c.args.every((w) => !w.dynamic && !w.glob && !w.brace && !w.tilde),
  );
  return { ok: a.ok, names: new Set(found), argvs: new Set(known.map((c) => JSON.stringify([c.name, ...c.args.map((w) => w.text)]))) };
}

/**
 * Commands bash runs that the analysis, where it could read the line, finds with other arguments
 * (an option taken for a descriptor, a `0>` taken for the command). `time` aside: bash prints a
 * bare `time --` as `time -p`; and `coproc cmd` as `coproc COPROC cmd`.
 */
function argumentsMissed(command: string, ours: { ok: boolean; argvs: Set<string> }, reference: { argvs: Set<string> }): string[] {
  if (!ours.ok) return [];
  return [...reference.argvs]
    .filter((a) => !ours.argvs.has(a) && !a.startsWith('["time"') && !a.startsWith('["COPROC"'))
    .map((a) => `${JSON.stringify(command)}: bash runs ${a}`);
}

const inputs = [
  ...EXPECTATIONS.map(([c]) => c),
  ...DISGUISES.flatMap((d) => RM_SPELLINGS.map((s) => d.replace("{}", () => `${s} -rf build`))),
].filter((c) => !c.includes("\0"));

describe(`bash's own parse agrees with the analysis (${inputs.length} commands)`, () => {
  it("every command bash sees is found", async () => {
    const missed: string[] = [];
    let compared = 0;
    const bodies = canonicalAll(inputs);
    for (const [i, command] of inputs.entries()) {
      const body = bodies[i];
      if (body === undefined) continue; // bash rejects it too: nothing would run
      compared++;
      const ours = await names(command);
      const reference = await names(body);
      // The canonical text sometimes trips the grammar itself (`coproc NAME`, indented heredocs).
      if (!reference.ok) continue;
      for (const n of reference.names) {
        if (n === "COPROC") continue; // bash prints `coproc COPROC cmd` for `coproc cmd`
        if (!ours.names.has(n)) missed.push(`${JSON.stringify(command)}: bash runs ${n}; canonical ${JSON.stringify(body)}`);
      }
      missed.push(...argumentsMissed(command, ours, reference));
    }
    expect(compared).toBeGreaterThan(inputs.length / 2);
    expect(compared).toBeGreaterThan(150);
    expect(missed).toEqual([]);
  }, 120_000);
});

/** A small seeded generator (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("bash's own parse agrees on generated commands", () => {
  it("random combinations of names, quoting, separators and substitutions", async () => {
    const rand = rng(20251123);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const commandNames = ["ls", "rm", "cat", "echo", "git", "mv", "touch", ...RM_SPELLINGS];
    const separators = ["; ", " && ", " || ", " | ", " & ", "\n", "\n\n", " \\\n", ";\\\n", "\r\n", " |& "];
    const forms = [
      (c: string) => c,
      (c: string) => `$(${c})`,
      (c: string) => `\`${c}\``,
      (c: string) => `echo "$(${c})"`,
      (c: string) => `{ ${c}; }`,
      (c: string) => `(${c})`,
      (c: string) => `if ${c}; then :; fi`,
      (c: string) => `bash -c '${c.replace(/'/g, "")}'`,
      (c: string) => `env ${c}`,
      (c: string) => `timeout 1 ${c}`,
      (c: string) => `x=1 ${c}`,
      (c: string) => `${c} 2>/dev/null`,
      (c: string) => `0</dev/null ${c}`,
      (c: string) => `${c} -j2>/dev/null`,
      (c: string) => `cd /tmp && ${c} > out`,
      (c: string) => `${c} 2>&- x`,
      (c: string) => `${c} >/dev/null 0<in y`,
      (c: string) => `${c} <<'E'\nbody\nE\n`,
      (c: string) => `cat <(${c})`,
    ];
    const simple = () => `${pick(commandNames)} ${pick(["-rf x", "a", "-la", "'q r'", '"s"', "x\\ y", ""])}`.trim();
    const missed: string[] = [];
    let compared = 0;
    const commands = Array.from({ length: 400 }, () => {
      const parts = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(forms)(simple()));
      let command = parts[0]!;
      for (const p of parts.slice(1)) command += pick(separators) + p;
      return command;
    });
    const bodies = canonicalAll(commands);
    for (const [i, command] of commands.entries()) {
      const body = bodies[i];
      if (body === undefined) continue;
      const reference = await names(body);
      if (!reference.ok) continue;
      compared++;
      const ours = await names(command);
      for (const n of reference.names) if (n !== "COPROC" && !ours.names.has(n)) missed.push(`${JSON.stringify(command)}: bash runs ${n}`);
      missed.push(...argumentsMissed(command, ours, reference));
    }
    expect(compared).toBeGreaterThan(150);
    expect(missed).toEqual([]);
  }, 120_000);
});

describe("plain lines, read without the grammar, as bash reads them", () => {
  it("every command, argument and redirection target of generated plain lines", async () => {
    const rand = rng(20261129);
    const tokens = ["ls", "rm", "cat", "x", "-", "-x", "--", "0", "2", "10", "a2", "-j2", "'q r'", '"s t"', "''", "'-'", "2'3'"]
      .concat([">", ">>", "<", ">&", "<&", "&>", "&>>", "|", "||", "&&", ";", "1", ">&-", "-rf", "/", ".env", "cd", "/etc", ".."])
      .concat(["sudo", "env", "@", "%", "a:b", "a=b", ",", "+", ".", "$HOME", "$X", '"$Y z"', "${Z}"]);
    const lines: string[] = [];
    for (let tries = 0; lines.length < 600 && tries < 100_000; tries++) {
      let line = "";
      for (let k = 2 + Math.floor(rand() * 7); k > 0; k--) line += tokens[Math.floor(rand() * tokens.length)]! + (rand() < 0.67 ? " " : "");
      if (plainCommands(line)) lines.push(line);
    }
    const seen = async (text: string) => {
      const a = await analyzeCommand(text, { cwd: "/ws", home: "/home/u" });
      const commands = a.commands.map((c) => JSON.stringify([c.name, ...c.args.map((w) => w.text)]));
      const targets = a.redirections.filter((r) => r.target).map((r) => `${r.operator} ${r.target!.text} in ${r.cwd}`);
      return { ok: a.ok, all: [...commands, ...targets] };
    };
    const differ: string[] = [];
    let compared = 0;
    const bodies = canonicalAll(lines);
    for (const [i, line] of lines.entries()) {
      const body = bodies[i];
      if (body === undefined) continue;
      const reference = await seen(body);
      if (!reference.ok) continue;
      compared++;
      const ours = (await seen(line)).all;
      const missing = reference.all.filter((x) => !ours.includes(x));
      const extra = ours.filter((x) => !reference.all.includes(x));
      if (missing.length + extra.length > 0)
        differ.push(`${JSON.stringify(line)}: bash ${JSON.stringify(missing)}, ours ${JSON.stringify(extra)}`);
    }
    expect(compared).toBeGreaterThan(400);
    expect(differ).toEqual([]);
  }, 120_000);
});
