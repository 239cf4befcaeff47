import { protocol } from "./protocol.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { lspToolBase, openDocument, positionArgs } from "./document.js";
import { formatLocations } from "./format.js";
import { lineReader, toLocations } from "./locations.js";
import type { LspManager } from "./lsp-manager.js";
import { TOOL_LSP } from "./names.js";

/** Where the symbol at a position is defined. */
export function definitionTool(manager: LspManager) {
  return defineTool({
    ...lspToolBase,
    name: TOOL_LSP.definition,
    description: loadDescription(import.meta.url, "definition.txt"),
    input: positionArgs,
    execute: async (args, ctx) => {
      const { uri, position, connection } = await openDocument(manager, args, ctx);
      const result = await connection.sendRequest(protocol().DefinitionRequest.type, { textDocument: { uri }, position: position! });
      return formatLocations(
        toLocations(result),
        ctx.workspace,
        lineReader(ctx.workspace),
        "No definition found at that position; point col at a symbol's name.",
      );
    },
  });
}
