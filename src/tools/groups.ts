import type { ToolGroup } from "./group.js";

/** The built-in groups, in listing order. Each group's folder adds itself here. */
export const BUILTIN_GROUPS: readonly ToolGroup[] = [];
