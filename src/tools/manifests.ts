import type { GroupManifest } from "./group.js";
import { FS } from "./fs/manifest.js";
import { SEARCH } from "./search/manifest.js";
import { SHELL } from "./shell/manifest.js";
import { CODE } from "./code/manifest.js";
import { WEB } from "./web/manifest.js";
import { LINKEDIN } from "./linkedin/manifest.js";
import { GOOGLE } from "./google/manifest.js";
import { ANTHROPIC } from "./anthropic/manifest.js";
import { GIT } from "./git/manifest.js";
import { LSP } from "./lsp/manifest.js";
import { CUSTOM } from "./custom/manifest.js";

/**
 * Every built-in group, in listing order. Adding a tool: write it (with its description), register
 * it in its group's index.ts, and add its name to the group's manifest.ts; everything that lists
 * names derives from here.
 */
export const MANIFESTS: readonly GroupManifest[] = [FS, SEARCH, SHELL, CODE, WEB, LINKEDIN, GOOGLE, ANTHROPIC, GIT, LSP, CUSTOM];

/** Every built-in tool name, keyed as the groups' manifests key them. */
export const TOOL = {
  ...FS.names,
  ...SEARCH.names,
  ...SHELL.names,
  ...CODE.names,
  ...WEB.names,
  ...LINKEDIN.names,
  ...GOOGLE.names,
  ...ANTHROPIC.names,
  ...GIT.names,
} as const;

/** Every name a group may register: its tools', their aliases and its variants. */
export function namesOf(manifest: GroupManifest): string[] {
  return [...Object.values(manifest.names), ...Object.keys(manifest.aliases ?? {}), ...(manifest.variants ?? [])];
}
