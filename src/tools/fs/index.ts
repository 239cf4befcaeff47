import type { ToolGroup } from "../group.js";
import { appendFileTool } from "./append-file.js";
import { applyPatchTool } from "./apply-patch.js";
import { copyFileTool } from "./copy-file.js";
import { createDirectoryTool } from "./create-directory.js";
import { deleteFileTool } from "./delete-file.js";
import { editFileTool } from "./edit-file.js";
import { listDirectoryTool } from "./list-directory.js";
import { moveFileTool } from "./move-file.js";
import { multiEditTool } from "./multi-edit.js";
import { readFileTool } from "./read-file.js";
import { writeFileTool } from "./write-file.js";

export {
  appendFileTool,
  applyPatchTool,
  copyFileTool,
  createDirectoryTool,
  deleteFileTool,
  editFileTool,
  listDirectoryTool,
  moveFileTool,
  multiEditTool,
  readFileTool,
  writeFileTool,
};

/** Every workspace file tool, in listing order. */
export const FILE_TOOLS = [
  readFileTool,
  writeFileTool,
  appendFileTool,
  editFileTool,
  multiEditTool,
  applyPatchTool,
  deleteFileTool,
  moveFileTool,
  copyFileTool,
  createDirectoryTool,
  listDirectoryTool,
] as const;

/** The workspace file tools: always available (they need no credentials). */
export const fileTools: ToolGroup = () => [...FILE_TOOLS];
