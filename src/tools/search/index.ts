import type { ToolGroup } from "../group.js";
import { searchConfig } from "./config.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";

export { createGlobTool, type GlobToolOptions } from "./glob.js";
export { createGrepTool, type GrepToolOptions } from "./grep.js";
export { BACKEND_ENV, type SearchBackend } from "./backend.js";

/**
 * The search tools: `glob` (also reached as spec 002's `search_files`) and `grep`. Both use
 * ripgrep when it is on PATH and an equivalent built-in engine when it is not; the `search`
 * section of the configuration (or TACKLE_GREP_BACKEND) can force either.
 */
export const searchTools: ToolGroup = ({ config }) => {
  const section = searchConfig(config);
  return [
    createGlobTool({ ...(section.backend ? { backend: section.backend } : {}) }),
    createGrepTool({
      ...(section.backend ? { backend: section.backend } : {}),
      ...(section.includeSensitive !== undefined ? { includeSensitive: section.includeSensitive } : {}),
    }),
  ];
};
