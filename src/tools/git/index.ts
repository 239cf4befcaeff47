import type { ToolGroup } from "../group.js";
import { createGitTools } from "./tools.js";

/** Spec 002's git tools; they report clearly when git or a repository is missing. */
export const gitTools: ToolGroup = () => createGitTools();
