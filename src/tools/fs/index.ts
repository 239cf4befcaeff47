import type { ToolGroup } from "../group.js";

/** Placeholder until the group's tools land; the group's owner replaces this file. */
export const fileTools: ToolGroup = () => [];
