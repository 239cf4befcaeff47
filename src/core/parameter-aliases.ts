import type { ValidationIssue } from "./tool.js";

/** Other spellings of a tool's parameters, alternate → canonical (`{ old_string: "old" }`). */
export type ParameterAliases = Readonly<Record<string, string>>;

/**
 * Renames other spellings to their canonical parameter before validation, so the published
 * schema shows one name, the tool sees one name, and errors use it. A pair that disagrees
 * (`old` and `old_string` with different text) is an issue rather than a silent choice.
 */
export function foldAliases(args: unknown, aliases: ParameterAliases | undefined): { args: unknown; issues: ValidationIssue[] } {
  if (!aliases || typeof args !== "object" || args === null || Array.isArray(args)) return { args, issues: [] };
  const source = args as Record<string, unknown>;
  if (!Object.keys(source).some((key) => Object.hasOwn(aliases, key))) return { args, issues: [] };
  const folded: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  for (const [key, value] of Object.entries(source)) {
    const canonical = Object.hasOwn(aliases, key) ? aliases[key]! : key;
    if (Object.hasOwn(folded, canonical) && !sameValue(folded[canonical], value)) {
      issues.push({
        path: canonical,
        message: `given twice with different values (as "${canonical}" and as "${key}"); send only "${canonical}"`,
      });
      continue;
    }
    // Defined, not assigned: a "__proto__" key stays a plain key instead of replacing the prototype.
    Object.defineProperty(folded, canonical, { value, enumerable: true, writable: true, configurable: true });
  }
  return { args: folded, issues };
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
