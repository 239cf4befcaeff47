import type { ToolGroup } from "../group.js";
import { resolveServers } from "./lsp-config.js";
import { LspManager } from "./lsp-manager.js";
import { sandboxSettingsFrom } from "../../sandbox/config.js";
import { hostReadOnlyLaunch, workspaceSecrets } from "../../sandbox/read-only.js";
import { definitionTool } from "./definition.js";
import { diagnosticsTool } from "./diagnostics.js";
import { hoverTool } from "./hover.js";
import { referencesTool } from "./references.js";
import { symbolsTool } from "./symbols.js";

/**
 * Spec 002's LSP tools, always registered: a language server configured (`lsp.servers`) or
 * installed (typescript-language-server, pyright or pylsp) starts on first use, and a call for a
 * file no server handles is answered with what to install or configure. Servers run read-only in
 * the sandbox where it works: they load the workspace's code (the project's TypeScript, plugins).
 */
export const lspTools: ToolGroup = (ctx) => {
  const servers = resolveServers((ctx.config as { lsp?: unknown }).lsp, ctx.workspace);
  const bwrap = sandboxSettingsFrom(ctx.config).bwrap;
  const manager = new LspManager(
    servers,
    (argv, root, env) => hostReadOnlyLaunch(argv, { root, bwrap, env }),
    async (root) => (await workspaceSecrets(root)).join("\0"),
  );
  ctx.onClose?.(() => manager.close());
  return [diagnosticsTool, symbolsTool, hoverTool, definitionTool, referencesTool].map((tool) => tool(manager));
};
