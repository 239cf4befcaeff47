import { domainMatches } from "../net/domain.js";
import picomatch from "picomatch";
import type { ToolScope } from "../core/tool.js";

/** Permission rules as written in configuration: `tool` or `tool(pattern)`. */
export interface PermissionRules {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/** One parsed rule. */
export interface Rule {
  /** Tool name; may contain `*` (`github__*`). */
  tool: string;
  /** Path glob, command prefix (`git status*`) or domain, depending on the tool's scope. */
  pattern?: string;
  /** The pattern is a literal subject (what a person approved), not a wildcard. */
  exact?: boolean;
  /** The rule as written, for messages. */
  source: string;
}

const RULE = /^([A-Za-z0-9_*-]+)(?:\((.*)\))?$/s;

/** Parses `tool` or `tool(pattern)`; throws with the offending text when malformed. */
export function parseRule(text: string): Rule {
  const match = RULE.exec(text.trim());
  if (!match) throw new Error(`Permission rule "${text}" is malformed; write "tool" or "tool(pattern)".`);
  const [, tool, pattern] = match;
  return pattern === undefined || pattern === "" || pattern === "*"
    ? { tool: tool!, source: text }
    : { tool: tool!, pattern, source: text };
}

export interface ParsedRules {
  allow: Rule[];
  ask: Rule[];
  deny: Rule[];
}

export function parseRules(rules: PermissionRules | undefined): ParsedRules {
  return {
    allow: (rules?.allow ?? []).map(parseRule),
    ask: (rules?.ask ?? []).map(parseRule),
    deny: (rules?.deny ?? []).map(parseRule),
  };
}

const toolMatchers = new Map<string, (name: string) => boolean>();
function toolNameMatches(pattern: string, names: readonly string[]): boolean {
  if (!pattern.includes("*")) return names.includes(pattern);
  let m = toolMatchers.get(pattern);
  if (!m) toolMatchers.set(pattern, (m = picomatch(pattern)));
  return names.some(m);
}

function escapeRegex(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

const commandMatchers = new Map<string, RegExp>();
/**
 * A command rule matches a whole simple command: `*` is any text, and a trailing `:*` (the form
 * other agents use) means the prefix alone or followed by arguments.
 */
export function commandMatches(pattern: string, command: string): boolean {
  let re = commandMatchers.get(pattern);
  if (!re) {
    const colon = pattern.endsWith(":*");
    const body = colon ? pattern.slice(0, -2) : pattern;
    const source = body.split("*").map(escapeRegex).join(".*");
    re = new RegExp(colon ? `^${source}(?:[ :].*)?$` : `^${source}$`, "s");
    commandMatchers.set(pattern, re);
  }
  return re.test(command.trim());
}

const pathMatchers = new Map<string, (p: string) => boolean>();
export function pathMatches(pattern: string, relative: string): boolean {
  let m = pathMatchers.get(pattern);
  if (!m) {
    const glob = pattern.replace(/^\.\//, "");
    const direct = picomatch(glob, { dot: true });
    // A directory pattern covers what is inside it.
    const inside = picomatch(`${glob.replace(/\/$/, "")}/**`, { dot: true });
    m = (p) => direct(p) || inside(p);
    pathMatchers.set(pattern, m);
  }
  return m(relative.replace(/^\.\//, ""));
}

export function subjectMatches(kind: ToolScope<unknown>["kind"], pattern: string, subject: string): boolean {
  switch (kind) {
    case "path":
      return pathMatches(pattern, subject);
    case "command":
      return commandMatches(pattern, subject);
    case "domain":
      return domainMatches(pattern, subject);
  }
}

/** Whether `rule` names this tool (by any of its names). */
export function ruleNamesTool(rule: Rule, toolNames: readonly string[]): boolean {
  return toolNameMatches(rule.tool, toolNames);
}

/**
 * Whether a deny or ask rule covers a call of the tool known by `names`, whose family (see
 * `ToolRegistry.familyOf`) is `family`. A rule with a pattern speaks of what is done to its
 * subjects, so it covers every tool of the family (`write_file(.env*)` stops `apply_patch` on
 * `.env.local`); a rule naming a tool alone covers that tool, and for commands every tool that runs
 * them (`shell` alone stops `bash`), never the other file tools (`delete_file` alone does not stop writes).
 */
export function restrictionCovers(
  rule: Rule,
  names: readonly string[],
  family: readonly string[],
  kind: ToolScope<unknown>["kind"] | undefined,
  subjects: readonly string[],
): boolean {
  return ruleCovers(rule, rule.pattern === undefined && kind !== "command" ? names : family, kind, subjects, false);
}

/**
 * Whether a rule covers a call. `every`: all subjects must match (allow rules); otherwise one
 * is enough (deny and ask rules). A pattern never matches a tool without subjects.
 */
export function ruleCovers(
  rule: Rule,
  toolNames: readonly string[],
  kind: ToolScope<unknown>["kind"] | undefined,
  subjects: readonly string[],
  every: boolean,
): boolean {
  if (!ruleNamesTool(rule, toolNames)) return false;
  if (rule.pattern === undefined) return true;
  if (!kind || subjects.length === 0) return false;
  const test = (s: string) => (rule.exact ? s === rule.pattern : subjectMatches(kind, rule.pattern!, s));
  return every ? subjects.every(test) : subjects.some(test);
}
