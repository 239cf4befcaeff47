import path from "node:path";
import { findExecutable } from "../../process/find-executable.js";
import { z } from "zod";

/** One language server: how to start it and which files it speaks for. */
export const LspServerSchema = z.object({
  command: z.string(),
  args: z.array(z.string()).default([]),
  /** File extensions with the dot: [".ts", ".tsx"]. */
  extensions: z.array(z.string()).min(1),
  /** LSP languageId per extension; defaults from the extension. */
  languageIds: z.record(z.string(), z.string()).optional(),
  initializationOptions: z.unknown().optional(),
  env: z.record(z.string(), z.string()).optional(),
  /**
   * Run it read-only in the sandbox (the default where bubblewrap works): the workspace's code it
   * loads cannot write, reach the network or read secrets. `false` runs it as it is, for a server
   * that must write (a build folder, a cache in the home folder) or fetch.
   */
  sandbox: z.boolean().optional(),
});

export const LspConfigSchema = z.object({ servers: z.record(z.string(), LspServerSchema).default({}) }).default({ servers: {} });

export type LspServerConfig = z.infer<typeof LspServerSchema>;

const LANGUAGE_IDS: Record<string, string> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
  ".py": "python",
  ".rs": "rust",
  ".go": "go",
};

export function languageIdFor(server: LspServerConfig, file: string): string {
  const ext = path.extname(file).toLowerCase();
  return server.languageIds?.[ext] ?? LANGUAGE_IDS[ext] ?? ext.slice(1);
}

/**
 * The servers to use: those configured under `lsp.servers`, plus the TypeScript and Python
 * servers when they are installed (in the workspace's node_modules or on PATH) and not configured.
 */
export function resolveServers(raw: unknown, workspace: string): Record<string, LspServerConfig> {
  const parsed = LspConfigSchema.parse(raw ?? undefined);
  const servers: Record<string, LspServerConfig> = { ...parsed.servers };
  const covered = new Set(Object.values(servers).flatMap((s) => s.extensions));
  // The workspace's own node_modules/.bin first, as npx would.
  const where = { dirs: [path.join(workspace, "node_modules", ".bin"), ...(process.env.PATH ?? "").split(path.delimiter)] };
  const ts = findExecutable("typescript-language-server", where);
  if (ts && !covered.has(".ts")) {
    servers.typescript = { command: ts, args: ["--stdio"], extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"] };
  }
  const py = findExecutable("pyright-langserver", where) ?? findExecutable("pylsp", where);
  if (py && !covered.has(".py")) {
    servers.python = { command: py, args: py.endsWith("pylsp") ? [] : ["--stdio"], extensions: [".py"] };
  }
  return servers;
}
