import path from "node:path";
import type { Effect } from "../core/effect.js";
import type { AnyTool, Assessment, ToolConfirmation, ToolContext, ToolScope } from "../core/tool.js";
import type { ApprovedBy } from "../core/result.js";
import { isSensitivePath } from "../workspace/sensitive.js";
import { executionSensitiveName, executionSensitiveReason } from "../workspace/protected.js";
import { restrictionCovers, ruleCovers, ruleNamesTool, type ParsedRules, type Rule } from "./rules.js";

import type { ApprovalMode } from "../core/approval-mode.js";
export { APPROVAL_MODES, type ApprovalMode } from "../core/approval-mode.js";

export type Decision =
  | { action: "allow"; approvedBy: Exclude<ApprovedBy, "policy">; reason: string; effect: Effect }
  | { action: "ask"; reason: string; effect: Effect }
  | { action: "deny"; reason: string; effect: Effect };

export interface PolicyInput {
  tool: AnyTool;
  /** Every name of the tool (canonical and aliases), so a rule written for one covers all. */
  names: readonly string[];
  /**
   * The names a deny or ask rule may use to cover this call (`ToolRegistry.familyOf`): a rule
   * against `shell(rm *)` covers `bash`. Default: `names`.
   */
  family?: readonly string[];
  /** The names a deny or ask rule may use to cover writing a file (`ToolRegistry.writeFamily`): for what a command writes. */
  writeFamily?: readonly string[];
  args: unknown;
  ctx: ToolContext;
  mode: ApprovalMode;
  rules: ParsedRules;
  /** What a person approved with "always" during this session. */
  sessionAllows: readonly Rule[];
  /** Workspace files configuration runs (MCP servers' scripts, language servers, custom tools' programs). */
  codeFiles?: ReadonlySet<string> | undefined;
}

/**
 * Decides allow / ask / deny for one call. Order: deny rules and the tool's own denial, then
 * sensitive paths, then ask rules and the tool's own "ask", then allow rules, then what the
 * person allowed for the session, then the mode. deny beats ask beats allow.
 */
export async function decide(input: PolicyInput): Promise<Decision> {
  const { tool, args, ctx } = input;
  const assessment = await tool.assess?.(args, ctx);
  const subjects = tool.scope ? await tool.scope.subjects(args, ctx) : [];
  return judge(input, assessment, subjects);
}

async function judge(input: PolicyInput, assessment: Assessment | undefined, subjects: readonly string[]): Promise<Decision> {
  const { tool, names, args, ctx, mode, rules } = input;
  const family = input.family ?? names;
  const effect = assessment?.effect ?? tool.effect;
  const kind = tool.scope?.kind;
  // What a command writes is judged by the rules for writing files too: `write_file(dist/**)` in deny stops `make > dist/x`.
  const writes = kind !== "path" && assessment?.writes?.length ? assessment.writes : undefined;
  const writeFamily = input.writeFamily ?? ["write_file"];

  const denied =
    rules.deny.find((r) => restrictionCovers(r, names, family, kind, subjects)) ??
    (writes && rules.deny.find((r) => r.pattern !== undefined && ruleCovers(r, writeFamily, "path", writes, false)));
  if (denied) return { action: "deny", reason: `denied by the rule "${denied.source}"`, effect };
  if (assessment?.deny) return { action: "deny", reason: assessment.deny, effect };
  if (assessment?.secret) {
    // As for the file tools: only a rule that covers this call and names the file lifts it, never
    // `tool`, `tool(*)` or `tool(cat *)`.
    const file = assessment.secretFile;
    const named =
      file !== undefined &&
      [...rules.allow, ...input.sessionAllows].some(
        (r) => r.pattern !== undefined && namesFile(r.pattern, file) && ruleCovers(r, names, kind, subjects, true),
      );
    if (!named) {
      // A redirection's file is in no subject, so no rule can name it there: say what can.
      const base = file === undefined ? undefined : path.posix.basename(file).toLowerCase();
      const inSubject = base === undefined || subjects.some((s) => s.toLowerCase().includes(base));
      const tool = assessment.writes?.includes(file ?? "") ? "write_file" : "read_file";
      return {
        action: "deny",
        reason: inSubject
          ? `${assessment.secret}, so tools may not read or write it unless configuration ` +
            `allows this call (permissions.allow: ["${names[0]}(${subjects[0] ?? ""})"])`
          : `${assessment.secret}, so tools may not read or write it; no rule can allow a redirection to or from it. ` +
            `Name it as an argument of the command instead, or use ${tool} with permissions.allow: ["${tool}(${file})"]`,
        effect,
      };
    }
  }

  if (kind === "path") {
    const explicitlyAllowed = (s: string) =>
      [...rules.allow, ...input.sessionAllows].some(
        (r) => r.pattern !== undefined && namesFile(r.pattern, s) && ruleCovers(r, names, kind, [s], true),
      );
    const secret = subjects.find((s) => isSensitivePath(s) && !explicitlyAllowed(s));
    if (secret) {
      return {
        action: "deny",
        reason: `"${secret}" may hold secrets, so tools may not touch it unless configuration allows it (permissions.allow: ["${names[0]}(${secret})"])`,
        effect,
      };
    }
    if (effect !== "read") {
      // A write here could make an allowed command (git status, npm run test) run what the agent
      // wrote: a file that is code needs a person in every mode, mode `all` included.
      const code = unnamedCode(subjects, names, [...rules.allow, ...input.sessionAllows], input.codeFiles);
      if (code) {
        const { subject, why } = code;
        return { action: "ask", reason: `${why}; a rule naming it (permissions.allow: ["${names[0]}(${subject})"]) lifts this`, effect };
      }
    }
  }

  if (assessment?.confirm) return { action: "ask", reason: assessment.confirm, effect };
  if (writes) {
    const code = unnamedCode(writes, names, [...rules.allow, ...input.sessionAllows], input.codeFiles, { kind, subjects });
    if (code)
      return { action: "ask", reason: `it writes ${code.subject}: ${code.why}; an allow rule naming ${code.subject} lifts this`, effect };
  }
  const asked =
    rules.ask.find((r) => restrictionCovers(r, names, family, kind, subjects)) ??
    (writes && rules.ask.find((r) => r.pattern !== undefined && ruleCovers(r, writeFamily, "path", writes, false)));
  if (asked) return { action: "ask", reason: `the rule "${asked.source}" asks for approval`, effect };
  // Mode `all` approves what the tool asks about, but not past a deny rule that could not see inside
  // the call (a command built at run time, code in a string): that is still for a person.
  const denyPatterns = rules.deny.some((r) => r.pattern !== undefined && ruleNamesTool(r, family));
  if (assessment?.ask && (mode !== "all" || denyPatterns)) return { action: "ask", reason: assessment.ask, effect };

  const allowed =
    rules.allow.find((r) => ruleCovers(r, names, kind, subjects, true)) ?? coveredPartByPart(rules.allow, names, kind, subjects);
  if (allowed) return { action: "allow", approvedBy: "config", reason: `allowed by the rule "${allowed.source}"`, effect };
  const remembered =
    input.sessionAllows.find((r) => ruleCovers(r, names, kind, subjects, true)) ??
    coveredPartByPart(input.sessionAllows, names, kind, subjects);
  if (remembered) return { action: "allow", approvedBy: "user", reason: `approved always for this session (${remembered.source})`, effect };

  if (mode === "all") return { action: "allow", approvedBy: "auto", reason: "approval mode all", effect };
  if (mode === "safe") {
    return judgeSafe(tool, effect, await ownVerdict(tool, args, ctx));
  }
  return { action: "ask", reason: `approval mode ${mode} asks for every call`, effect };
}

/**
 * Whether a rule's pattern names `file` (a secret): it holds the file's name as written, not only a
 * wildcard that happens to match it. `read_file(.env)`, `read_file(config/*.pem)` for
 * `config/server.pem` and `shell(cat .env)` name theirs; `read_file(**)` and `shell(cat *)` do not.
 */
function namesFile(pattern: string, file: string): boolean {
  const base = path.posix.basename(file.replace(/\/+$/, "")).toLowerCase();
  const text = pattern.toLowerCase();
  if (text.includes(base)) return true;
  // A glob for a kind of file names it by its extension (`*.pem`), never by `*` or `**` alone.
  const ext = path.posix.extname(base);
  return ext !== "" && ext !== base && text.includes(`*${ext}`);
}

/**
 * Why writing `relative` could make a program run: a file that git, a package manager or a shell
 * runs, one the configuration runs, or one in a folder of the workspace on PATH (an entry of
 * `codeFiles` ending in "/", "/" alone for the workspace itself); undefined when it is none of these.
 */
export function codeReason(relative: string, codeFiles: ReadonlySet<string> | undefined): string | undefined {
  const why = executionSensitiveReason(relative);
  if (why || !codeFiles) return why;
  for (const file of codeFiles) {
    if (file.endsWith("/")) {
      // What the folder holds, the folder, and the folders that hold it.
      const dir = file.slice(0, -1);
      const within = dir === "" ? !relative.includes("/") : relative === dir || relative.startsWith(file) || dir.startsWith(`${relative}/`);
      if (within)
        return `${relative} is in ${dir || "the workspace's top folder"}, which is on PATH: a command typed there, or one tackle starts, may run it`;
    } else if (relative === file || file.startsWith(`${relative}/`)) return `${relative} is run by tackle's configuration (${file})`;
  }
  return undefined;
}

/**
 * The first of `paths` that is code (see {@link codeReason}) and that no allow rule covering the
 * call names, with why: writing it needs a person. For a path tool the rule must cover that path
 * (`write_file(**)` does not name `package.json`; `write_file(app/package.json)` does); for
 * another (`call`: a shell command and what rules match for it) the rule must cover the call and
 * name the file (`shell(make > Makefile)` does; `shell(*)` does not).
 */
export function unnamedCode(
  paths: readonly string[],
  names: readonly string[],
  allows: readonly Rule[],
  codeFiles: ReadonlySet<string> | undefined,
  call?: { kind: ToolScope<unknown>["kind"] | undefined; subjects: readonly string[] },
): { subject: string; why: string } | undefined {
  for (const subject of paths) {
    const why = codeReason(subject, codeFiles);
    if (!why) continue;
    const name = executionSensitiveName(subject).toLowerCase();
    const covers = (r: Rule) =>
      call ? ruleCovers(r, names, call.kind, call.subjects, true) : ruleCovers(r, names, "path", [subject], true);
    if (!allows.some((r) => r.pattern?.toLowerCase().includes(name) && covers(r))) return { subject, why };
  }
  return undefined;
}

/** Mode `safe`, once nothing else decided: the tool's own word, then the effect. */
function judgeSafe(tool: AnyTool, effect: Effect, own: Verdict | undefined): Decision {
  if (own?.required) {
    const reason =
      own.message ?? (effect === "read" ? `${tool.name} asks for approval of this call` : `${describeEffect(effect)} need approval`);
    return { action: "ask", reason, effect };
  }
  if (effect === "read") return { action: "allow", approvedBy: "auto", reason: "reads are auto-approved", effect };
  if (own && !own.required && effect !== "destructive") {
    return { action: "allow", approvedBy: "auto", reason: "this call needs no approval", effect };
  }
  return { action: "ask", reason: `${describeEffect(effect)} need approval`, effect };
}

interface Verdict {
  required: boolean;
  message?: string;
}

/**
 * What a tool says of one call, in `safe` mode: its `needsApproval(args)` (the class form's
 * `getConfirmation` and the result form's `requiresApproval` arrive as one). A destructive
 * effect is asked about whatever the tool says; undefined when the tool says nothing.
 */
function ownVerdict(tool: AnyTool, args: unknown, ctx: ToolContext): Verdict | undefined | Promise<Verdict> {
  if (!tool.needsApproval) return undefined;
  const said = tool.needsApproval(args, ctx);
  const verdict = (v: boolean | ToolConfirmation): Verdict =>
    typeof v === "boolean" ? { required: v } : { required: v.required, ...(v.message ? { message: v.message } : {}) };
  return said instanceof Promise ? said.then(verdict) : verdict(said);
}

/**
 * A command of several parts (`git status && git diff`) is allowed when each part is covered by
 * some pattern rule, not necessarily the same one. Returns a rule standing for the set, or undefined.
 */
function coveredPartByPart(
  list: readonly Rule[],
  names: readonly string[],
  kind: PolicyKind,
  subjects: readonly string[],
): Rule | undefined {
  if (kind !== "command" || subjects.length < 2) return undefined;
  const used: Rule[] = [];
  for (const s of subjects) {
    const rule = list.find((r) => r.pattern !== undefined && ruleCovers(r, names, kind, [s], true));
    if (!rule) return undefined;
    if (!used.includes(rule)) used.push(rule);
  }
  return { tool: names[0] ?? "", source: used.map((r) => r.source).join(", ") };
}

type PolicyKind = "path" | "command" | "domain" | undefined;

function describeEffect(effect: Effect): string {
  switch (effect) {
    case "write":
      return "changes to files";
    case "execute":
      return "commands";
    case "network":
      return "network requests";
    case "destructive":
      return "destructive operations";
    case "read":
      return "reads";
  }
}

/**
 * What "always" remembers: the narrowest rules that cover this very call, the same in every front
 * end (terminal, dashboard, Emacs, MCP): the exact paths, commands or domains it touches, never
 * the whole tool, so approving `write_file(notes.txt)` for good does not approve writing every
 * file, nor `git status` `git push`. A tool without subjects is remembered by its name.
 */
export async function rememberedRules(tool: AnyTool, args: unknown, ctx: ToolContext, name: string): Promise<Rule[]> {
  if (!tool.scope) return [{ tool: name, source: name }];
  const subjects = await tool.scope.subjects(args, ctx);
  if (subjects.length === 0) return [{ tool: name, source: name }];
  return subjects.map((s) => ({ tool: name, pattern: s, exact: true, source: `${name}(${s})` }));
}
