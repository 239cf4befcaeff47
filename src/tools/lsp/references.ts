import { protocol } from "./protocol.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { lspToolBase, openDocument, positionArgs } from "./document.js";
import { formatLocations } from "./format.js";
import { lineReader } from "./locations.js";
import type { LspManager } from "./lsp-manager.js";
import { TOOL_LSP } from "./names.js";

/** Every use of the symbol at a position, its declaration included. */
export function referencesTool(manager: LspManager) {
  return defineTool({
    ...lspToolBase,
    name: TOOL_LSP.references,
    description: loadDescription(import.meta.url, "references.txt"),
    input: positionArgs,
    execute: async (args, ctx) => {
      const { uri, position, connection } = await openDocument(manager, args, ctx);
      const result = await connection.sendRequest(protocol().ReferencesRequest.type, {
        textDocument: { uri },
        position: position!,
        context: { includeDeclaration: true },
      });
      return formatLocations(
        result ?? [],
        ctx.workspace,
        lineReader(ctx.workspace),
        "No references found at that position; point col at a symbol's name.",
      );
    },
  });
}
