import { unnamedCode, type ApprovalMode } from "./policy.js";
import { restrictionCovers, ruleCovers, type ParsedRules, type Rule } from "./rules.js";
import { isProtectedPath } from "../workspace/protected.js";
import { isSensitivePath } from "../workspace/sensitive.js";
import { holdsTackleFolder, inTackleFolder } from "../workspace/own-folders.js";
import path from "node:path";

/**
 * How the changes a call made while running (run_code's edits to its copy of the workspace) are
 * judged before they reach the workspace: each path as a write of that file would be.
 */
export interface ChangeVerdict {
  /** Paths never applied, with why: tackle's configuration, git hooks, secrets, deny rules. */
  refused: Array<{ path: string; why: string }>;
  /** The rest, to apply once approved. */
  kept: string[];
  /** Why a person must approve the kept paths, or undefined when policy approves them. */
  ask?: string;
}

/**
 * Why no tool writes `relative` (below `root`), whoever approves: undefined when a rule or a
 * person may let it through.
 */
export function neverWritten(root: string, relative: string): string | undefined {
  const absolute = path.join(root, relative);
  if (inTackleFolder(absolute)) return "it is inside tackle's own program, cache or state folder";
  if (absolute !== root && holdsTackleFolder(absolute)) return "it holds tackle's own program, cache or state folder";
  if (isProtectedPath(relative)) return "tackle's configuration and git's hooks and config are never written by tools";
  if (isSensitivePath(relative)) return "it may hold secrets";
  return undefined;
}

/**
 * Judges changed paths for a tool known by `names` (its own names and write_file's, so an allow
 * rule written for file writes covers them too); deny and ask rules with a pattern are matched with
 * `family` (every file tool's names as well: `edit_file(src/**)` in deny stops these; see restrictionCovers). Deny beats ask beats
 * mode: a file that is code (execution-sensitive) needs a person in every mode unless an allow rule names it.
 */
export function judgeChanges(
  root: string,
  paths: readonly string[],
  names: readonly string[],
  family: readonly string[],
  mode: ApprovalMode,
  rules: ParsedRules,
  sessionAllows: readonly Rule[],
  codeFiles?: ReadonlySet<string>,
): ChangeVerdict {
  const refused: ChangeVerdict["refused"] = [];
  const kept: string[] = [];
  for (const p of paths) {
    const never = neverWritten(root, p);
    const denied = never ? undefined : rules.deny.find((r) => restrictionCovers(r, names, family, "path", [p]));
    if (never) refused.push({ path: p, why: never });
    else if (denied) refused.push({ path: p, why: `denied by the rule "${denied.source}"` });
    else kept.push(p);
  }
  if (kept.length === 0) return { refused, kept };
  const allows = [...rules.allow, ...sessionAllows];
  const code = unnamedCode(kept, names, allows, codeFiles);
  if (code) return { refused, kept, ask: `${code.why}; a file that is code is changed only with a person's approval` };
  const asked = rules.ask.find((r) => restrictionCovers(r, names, family, "path", kept));
  if (asked) return { refused, kept, ask: `the rule "${asked.source}" asks for approval` };
  const allowed = allows.find((r) => r.pattern !== undefined && ruleCovers(r, names, "path", kept, true));
  if (allowed || mode === "all") return { refused, kept };
  return {
    refused,
    kept,
    ask: `the code changed ${kept.length === 1 ? "1 entry" : `${kept.length} entries`} in its copy of the workspace; changes are applied only with approval`,
  };
}
