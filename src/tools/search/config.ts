import { z } from "zod";
import type { TackleConfig } from "../../config/config.js";
import { SEARCH_BACKENDS, type SearchBackend } from "./backend.js";

/**
 * The `search` section of tackle.config.json:
 * `{ "search": { "backend": "auto" | "ripgrep" | "builtin", "includeSensitive": false } }`.
 */
export const SearchConfigSchema = z.object({
  /** Engine for glob and grep; `auto` uses ripgrep when it is on PATH. TACKLE_GREP_BACKEND overrides `auto`. */
  backend: z.enum(SEARCH_BACKENDS as [SearchBackend, ...SearchBackend[]]).optional(),
  /** Let grep read files that may hold secrets (.env, keys...). Off by default. */
  includeSensitive: z.boolean().optional(),
});

export type SearchConfig = z.infer<typeof SearchConfigSchema>;

/** Reads and checks the section; a malformed one is an error that names the field. */
export function searchConfig(config: TackleConfig): SearchConfig {
  const raw = (config as Record<string, unknown>).search;
  if (raw === undefined) return {};
  const parsed = SearchConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `tackle.config.json "search" is invalid: ${issue ? `${issue.path.join(".") || "search"}: ${issue.message}` : "unknown problem"}.`,
    );
  }
  return parsed.data;
}
