import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { fileArgs, lspToolBase, openDocument } from "./document.js";
import { formatDiagnostics } from "./format.js";
import type { LspManager } from "./lsp-manager.js";
import { TOOL_LSP } from "./names.js";

/** The errors and warnings a language server reports for a file. */
export function diagnosticsTool(manager: LspManager) {
  return defineTool({
    ...lspToolBase,
    name: TOOL_LSP.diagnostics,
    description: loadDescription(import.meta.url, "diagnostics.txt"),
    input: fileArgs,
    execute: async (args, ctx) => {
      const { file, client, uri } = await openDocument(manager, args, ctx);
      const items = await client.diagnostics(uri, ctx.signal);
      return { content: formatDiagnostics(file.relative, items), structured: { diagnostics: items } };
    },
  });
}
