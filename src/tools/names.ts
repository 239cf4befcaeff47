import { MANIFESTS } from "./manifests.js";

export { TOOL } from "./manifests.js";

/** Names the specs use for the same tools: alias → canonical (from the groups' manifests). */
export const ALIASES: Readonly<Record<string, string>> = Object.assign({}, ...MANIFESTS.map((m) => m.aliases ?? {}));

/** The specs' other names for the tool `name` (`edit` for `edit_file`). */
export function aliasesOf(name: string): string[] {
  return Object.keys(ALIASES).filter((alias) => ALIASES[alias] === name);
}

/**
 * Tools that are variants of another under a spec's name (`bash`: the shell with a 30-second
 * default). They resolve in every toolset but are listed only where their spec is.
 */
export const VARIANTS: ReadonlySet<string> = new Set(MANIFESTS.flatMap((m) => m.variants ?? []));
