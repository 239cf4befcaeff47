import { protocol } from "./protocol.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { fileArgs, lspToolBase, openDocument } from "./document.js";
import { formatSymbols } from "./format.js";
import type { LspManager } from "./lsp-manager.js";
import { TOOL_LSP } from "./names.js";

/** The outline of a file: its classes, functions and variables. */
export function symbolsTool(manager: LspManager) {
  return defineTool({
    ...lspToolBase,
    name: TOOL_LSP.symbols,
    description: loadDescription(import.meta.url, "symbols.txt"),
    input: fileArgs,
    execute: async (args, ctx) => {
      const { file, uri, connection } = await openDocument(manager, args, ctx);
      const symbols = (await connection.sendRequest(protocol().DocumentSymbolRequest.type, { textDocument: { uri } })) ?? [];
      return formatSymbols(file.relative, symbols);
    },
  });
}
