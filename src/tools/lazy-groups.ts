import type { ToolGroup } from "./group.js";
import { MANIFESTS, namesOf } from "./manifests.js";

/** A built-in group that loads its code only when asked for, with the tool names it can provide. */
export interface LazyGroup {
  /** Every name the group may register (canonical names, aliases and variants). */
  readonly names: readonly string[];
  /** Secrets it needs to offer any tool (see GroupManifest.needs). */
  readonly needs: readonly string[];
  load(): Promise<ToolGroup>;
}

/**
 * The built-in groups in listing order, each imported on demand: `tackle call read_file` loads
 * the file tools and not the Google, language-server or shell-grammar code. `builtin-tools.ts` lists
 * the same groups eagerly for the synchronous `createBuiltinTools()`.
 */
export const LAZY_GROUPS: readonly LazyGroup[] = MANIFESTS.map((m) => ({ names: namesOf(m), needs: m.needs ?? [], load: m.load }));

/** Whether every secret in `needs` is set and not blank in `env`. */
export function hasSecrets(env: Readonly<Record<string, string | undefined>>, needs: readonly string[]): boolean {
  return needs.every((name) => Boolean(env[name]?.trim()));
}

/**
 * The groups to load for a session: all of them, or, when only `wanted` tools are needed and
 * every one of them is a built-in name, just the groups that provide those. With `env`, a group
 * whose secrets are missing is left out unloaded: it would offer nothing.
 */
export async function loadGroups(wanted?: readonly string[], env?: Readonly<Record<string, string | undefined>>): Promise<ToolGroup[]> {
  const needed =
    wanted && wanted.length > 0 && wanted.every((name) => LAZY_GROUPS.some((g) => g.names.includes(name)))
      ? LAZY_GROUPS.filter((g) => g.names.some((name) => wanted.includes(name)))
      : LAZY_GROUPS;
  return Promise.all(needed.filter((g) => !env || hasSecrets(env, g.needs)).map((g) => g.load()));
}
