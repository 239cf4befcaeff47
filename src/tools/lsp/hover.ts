import { protocol } from "./protocol.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { lspToolBase, openDocument, positionArgs } from "./document.js";
import { formatHover } from "./format.js";
import type { LspManager } from "./lsp-manager.js";
import { TOOL_LSP } from "./names.js";

/** The type and documentation of the symbol at a position. */
export function hoverTool(manager: LspManager) {
  return defineTool({
    ...lspToolBase,
    name: TOOL_LSP.hover,
    description: loadDescription(import.meta.url, "hover.txt"),
    input: positionArgs,
    execute: async (args, ctx) => {
      const { uri, position, connection } = await openDocument(manager, args, ctx);
      return formatHover(await connection.sendRequest(protocol().HoverRequest.type, { textDocument: { uri }, position: position! }));
    },
  });
}
