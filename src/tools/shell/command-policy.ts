import os from "node:os";
import type { Assessment } from "../../core/tool.js";
import { Workspace } from "../../workspace/workspace.js";
import { analyzeCommand, type CommandAnalysis, type SimpleCommand } from "./analysis/command-analysis.js";
import { dangerousReason } from "./analysis/dangerous.js";
import { destructiveReason, gitSubcommand } from "./analysis/destructive.js";
import { shellQuote } from "./analysis/words.js";
import { readOnlyVerdict } from "./analysis/read-only.js";
import { SHELLS, shellScriptArg } from "./analysis/wrappers.js";
import { variantsOf } from "./judgement/variants.js";
import { checkReadPath, insideReally } from "./judgement/reads.js";
import { secretNamed, secretUnnamed, type Secret } from "./judgement/secrets.js";
import { checkWrite, operandWrites, touchesProtected } from "./judgement/writes.js";
import { fallbackCommands } from "./judgement/fallback.js";
import { inlineCode } from "./rules/inline-code.js";
import { packageScriptsElsewhere } from "./rules/package-managers.js";
import { runsLater } from "./rules/run-later.js";

/** Everything the policy needs to know about one command line. */
export interface CommandJudgement {
  analysis: CommandAnalysis;
  /** What permission rules match: every simple command, normalized (and as written when that differs). */
  subjects: string[];
  /** Always refused (spec 002's dangerous list). */
  deny?: string;
  /** Always asked, whatever allow rules say (destructive verbs, writes outside, eval, parse failures). */
  ask?: string;
  /** Every part only reads, inside the workspace, nothing secret: `safe` mode may run it unasked. */
  readOnly: boolean;
  /** Why it is not read-only. */
  notReadOnly?: string;
  /** A file that may hold secrets it names or reads (`cat .env`), refused unless a rule names that file. */
  secret?: string;
  /** That file, as named: a rule releases the secret only when its pattern names it. */
  secretFile?: string;
  /** Workspace-relative paths it is known to write: redirections, and operands of commands that write files. */
  writes?: string[];
  destructive: boolean;
}

const FLAG_ASKS = ["parse-error", "too-deep", "eval", "source", "dynamic", "sensitive-assignment", "arithmetic"] as const;

/** `git -C x --no-pager push` also as `git push`, so a deny rule on `git push` sees it. */
function gitWithoutGlobals(c: SimpleCommand): string[] {
  if (c.name !== "git") return [];
  const { globals, sub, rest } = gitSubcommand(c);
  if (!globals.length || !sub) return [];
  return [["git", sub, ...rest.map((a) => (a.dynamic ? a.text : shellQuote(a.text)))].join(" ")];
}

/** What the checks have found so far about a line; each check adds to it (see {@link fold}). */
interface Verdict {
  /** The first reason to refuse. */
  deny?: string;
  asks: string[];
  /** The first reason it is not read-only. */
  notReadOnly?: string;
  /** The first secret it names or reads. */
  secret?: Secret;
  writes: string[];
  destructive: boolean;
}

/** What one check adds; `ask` and `writes` accumulate, the first deny, reason and secret stand. */
type Finding = Partial<Omit<Verdict, "asks" | "writes">> & { ask?: string | undefined; writes?: string[] };

/** The line being judged, as each check sees it. */
interface Line {
  analysis: CommandAnalysis;
  /** What the grammar could not read, split the crude way. */
  fallback: SimpleCommand[];
  workspace: Workspace;
  home: string;
  /** The bubblewrap the judgement's own git runs use (`sandbox.bwrap`); default `bwrap` on PATH. */
  bwrap: string | undefined;
}

type LineCheck = (line: Line, so: Readonly<Verdict>) => Finding | undefined | Promise<Finding | undefined>;
type CommandCheck = (cmd: SimpleCommand, line: Line, so: Readonly<Verdict>) => Finding | undefined | Promise<Finding | undefined>;

function fold(v: Verdict, f: Finding | undefined): Verdict {
  if (!f) return v;
  v.deny ??= f.deny;
  v.notReadOnly ??= f.notReadOnly;
  v.secret ??= f.secret;
  if (f.ask) v.asks.push(f.ask);
  if (f.writes) v.writes.push(...f.writes);
  v.destructive ||= f.destructive === true;
  return v;
}

/** Before the commands: what the grammar flagged in the line as a whole. */
const LINE_CHECKS: readonly LineCheck[] = [
  ({ analysis }) => (analysis.ok ? undefined : { notReadOnly: "it could not be parsed" }),
  ({ analysis }) => ({ deny: analysis.flags.get("fork-bomb") }),
  ...FLAG_ASKS.map((flag): LineCheck => ({ analysis }) => {
    const why = analysis.flags.get(flag);
    return why ? { ask: why, notReadOnly: why } : undefined;
  }),
  ...(["function", "cwd-unknown"] as const).map((flag): LineCheck => ({ analysis }) => ({ notReadOnly: analysis.flags.get(flag) })),
  ({ fallback, home }) => ({ deny: fallback.map((cmd) => dangerousReason(cmd, home)).find(Boolean) }),
];

/** For each simple command, in order: what refuses it, what asks, what it writes, what it reads. */
const COMMAND_CHECKS: readonly CommandCheck[] = [
  (cmd, { home }) => ({ deny: dangerousReason(cmd, home) }),
  (cmd) => {
    const d = destructiveReason(cmd);
    return d ? { destructive: true, ask: `${cmd.text}: ${d}` } : undefined;
  },
  (cmd) => (/^(sudo|sudoedit|doas|su|runuser|pkexec)$/.test(cmd.name) ? { ask: `${cmd.name} runs commands as another user` } : undefined),
  (cmd) => ({ ask: runsLater(cmd) }),
  (cmd) => ({ ask: inlineCode(cmd) }),
  (cmd, { workspace }) => ({ ask: packageScriptsElsewhere(cmd, workspace) }),
  async (cmd, { workspace }) =>
    readOnlyVerdict(cmd).readOnly ? undefined : { ask: await touchesProtected(cmd, workspace), writes: operandWrites(cmd, workspace) },
  (cmd) => {
    if (!SHELLS.has(cmd.name) || cmd.dynamicName) return undefined;
    return !shellScriptArg(cmd.name, cmd.args).hasC && cmd.args.every((a) => a.text.startsWith("-"))
      ? { ask: `${cmd.name} runs a script from its input` }
      : undefined;
  },
  async (cmd, { workspace, home }, so) => (so.secret ? undefined : { secret: await secretNamed(cmd.args, cmd.cwd, workspace, home) }),
  // Whatever else the line does (`npm -v; grep -r KEY .`), a command that reads a secret is one.
  async (cmd, { workspace, home, bwrap }, so) => {
    if (so.secret) return undefined;
    const unnamed = await secretUnnamed(cmd, readOnlyVerdict(cmd), workspace, home, bwrap);
    return unnamed ? { secret: unnamed, notReadOnly: unnamed.why } : undefined;
  },
  (cmd, line, so) => (so.notReadOnly ? undefined : readsOnly(cmd, line)),
];

/** Why a command is not read-only, when it is not: unknown to the read-only table, or reading outside. */
async function readsOnly(cmd: SimpleCommand, { workspace, home }: Line): Promise<Finding | undefined> {
  const verdict = readOnlyVerdict(cmd);
  if (!verdict.readOnly) return { notReadOnly: verdict.reason };
  if (verdict.noPaths) {
    // echo, true, printf read no files, but bash expands their globs (`echo /etc/*`) to file names.
    for (const a of cmd.args) {
      const why = a.glob ? await checkReadPath(a, cmd.cwd, workspace, home) : undefined;
      if (why) return { notReadOnly: why };
    }
  } else if (cmd.cwd === undefined) return { notReadOnly: "the working directory is only known when it runs" };
  else if (!(await insideReally(cmd.cwd, workspace))) return { notReadOnly: `it runs in ${cmd.cwd}, outside the workspace` };
  for (const p of verdict.paths) {
    const why = await checkReadPath(p, cmd.cwd, workspace, home);
    if (why) return { notReadOnly: why };
  }
  return undefined;
}

/** After the commands: each redirection, in order (a file it names, a write, a read outside). */
async function redirections({ analysis, workspace, home }: Line, v: Verdict): Promise<void> {
  for (const r of analysis.redirections) {
    if (r.target && !v.secret) fold(v, { secret: await secretNamed([r.target], r.cwd, workspace, home) });
    if (r.write) {
      const w = await checkWrite(r.target, r.cwd, workspace, home);
      fold(
        v,
        w && {
          deny: w.deny,
          ask: w.ask,
          notReadOnly: w.ask ?? `it writes to ${r.target?.text}`,
          writes: w.relative === undefined ? [] : [w.relative],
        },
      );
    } else if (r.read && r.target && !v.notReadOnly) {
      fold(v, { notReadOnly: await checkReadPath(r.target, r.cwd, workspace, home) });
    }
  }
}

/**
 * Judges a command line for the policy: the subjects rules match, what is always denied,
 * what always asks, and whether it only reads. `cwd` is where it will run (absolute). The
 * checks run in a fixed order and each adds to one verdict: every question asked is kept, and
 * for a refusal, a reason or a secret the first found stands.
 */
export async function judgeCommand(
  command: string,
  cwd: string,
  workspace: Workspace,
  home = os.homedir(),
  sandbox: { bwrap?: string | undefined } = {},
): Promise<CommandJudgement> {
  const analysis = await analyzeCommand(command, { cwd, home });
  // A loop or assignment whose values are in the line (`for i in 1 2; do echo tick $i; done`) is
  // judged as what it runs, value by value: rules and checks then see `echo tick 1`, not `$i`.
  if (analysis.ok && analysis.flags.has("dynamic") && !FLAG_ASKS.some((f) => f !== "dynamic" && analysis.flags.has(f))) {
    const variants = variantsOf(command);
    const judged = variants && (await Promise.all(variants.map((v) => judgeCommand(v, cwd, workspace, home, sandbox))));
    if (judged && judged.every((j) => j.analysis.ok && !FLAG_ASKS.some((f) => j.analysis.flags.has(f)))) return combine(analysis, judged);
  }
  // The bare form lets deny rules see through `FOO=1 rm`; the full and as-written forms keep allow rules narrow.
  const subjects = analysis.commands.flatMap((c) => [c.bare, c.text, ...(c.written ? [c.written] : []), ...gitWithoutGlobals(c)]);
  // What the grammar could not read is still matched by deny rules, split the crude way.
  const fallback = analysis.ok ? [] : fallbackCommands(command);
  if (!analysis.ok) subjects.push(...fallback.map((c) => c.text), command.trim());

  const line: Line = { analysis, fallback, workspace, home, bwrap: sandbox.bwrap };
  const v: Verdict = { asks: [], writes: [], destructive: false };
  for (const check of LINE_CHECKS) fold(v, await check(line, v));
  for (const cmd of analysis.commands) for (const check of COMMAND_CHECKS) fold(v, await check(cmd, line, v));
  await redirections(line, v);

  const judgement: CommandJudgement = {
    analysis,
    subjects: [...new Set(subjects)],
    readOnly: !v.notReadOnly && analysis.ok,
    destructive: v.destructive,
  };
  if (v.writes.length) judgement.writes = [...new Set(v.writes)];
  if (v.deny) judgement.deny = v.deny;
  if (v.asks.length) judgement.ask = [...new Set(v.asks)].join("; ");
  if (v.notReadOnly) judgement.notReadOnly = v.notReadOnly;
  if (v.secret) {
    judgement.secret = v.secret.why;
    judgement.secretFile = v.secret.file;
    judgement.readOnly = false;
  }
  return judgement;
}

/** One judgement for a line from those of its variants: the strictest of each. */
function combine(analysis: CommandAnalysis, judged: CommandJudgement[]): CommandJudgement {
  const asks = [...new Set(judged.flatMap((j) => (j.ask ? [j.ask] : [])))];
  const notReadOnly = judged.find((j) => j.notReadOnly)?.notReadOnly;
  const deny = judged.find((j) => j.deny)?.deny;
  const secretJudged = judged.find((j) => j.secret);
  const writes = [...new Set(judged.flatMap((j) => j.writes ?? []))];
  return {
    analysis,
    subjects: [...new Set(judged.flatMap((j) => j.subjects))],
    readOnly: judged.every((j) => j.readOnly),
    destructive: judged.some((j) => j.destructive),
    ...(deny ? { deny } : {}),
    ...(asks.length ? { ask: asks.join("; ") } : {}),
    ...(notReadOnly ? { notReadOnly } : {}),
    ...(secretJudged ? { secret: secretJudged.secret!, secretFile: secretJudged.secretFile! } : {}),
    ...(writes.length ? { writes } : {}),
  };
}

/** The policy's view: a denial, a forced question, or the effect this call really has. */
export function toAssessment(j: CommandJudgement): Assessment {
  const effect = j.readOnly ? "read" : j.destructive ? "destructive" : "execute";
  return {
    effect,
    ...(j.deny ? { deny: `${j.deny}; this command is never run` } : {}),
    ...(j.ask ? { ask: j.ask } : {}),
    ...(j.secret ? { secret: j.secret, secretFile: j.secretFile! } : {}),
    ...(j.writes ? { writes: j.writes } : {}),
  };
}
