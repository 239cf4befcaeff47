import { existsSync } from "node:fs";
import path from "node:path";
import type { TackleConfig } from "./config.js";
import { pathBelow } from "../workspace/path-below.js";

/**
 * The workspace files configuration runs: MCP servers' commands and scripts, language servers'
 * commands, the programs of tools declared under `tools`. Each is code as surely as a Makefile:
 * writing, moving or replacing one needs a person (see runtime/policy.ts). Found from every word
 * of those commands that, taken as a path from the workspace (or the server's cwd), lies inside
 * it: a program named with a slash, and an argument that names a folder or an extension or an
 * existing file, whether or not it exists yet; placeholders, options and numbers are not paths.
 */
export function configuredCodeFiles(config: TackleConfig, workspace: string): string[] {
  const found = new Set<string>();
  // A program named without a slash is found on PATH, not in the workspace.
  const add = (word: unknown, base = workspace, program = false) => {
    if (typeof word !== "string" || word === "" || word.startsWith("-") || word.includes("://") || /[{}\s=]/.test(word)) return;
    if (program && !word.includes("/")) return;
    // An argument is taken for a file when it looks like one (a folder or an extension) or is one.
    if (!program && !word.includes("/") && !/\.[A-Za-z0-9]+$/.test(word) && !existsSync(path.resolve(base, word))) return;
    const relative = pathBelow(workspace, path.resolve(base, word));
    if (relative) found.add(relative.split(path.sep).join("/"));
  };
  for (const entry of Object.values(config.mcpServers ?? {})) {
    const server = entry as { command?: string; args?: string[]; cwd?: string };
    const base = server.cwd ? path.resolve(workspace, server.cwd) : workspace;
    add(server.command, base, true);
    for (const arg of server.args ?? []) add(arg, base);
  }
  const raw = config as Record<string, unknown>;
  const lsp = (raw.lsp as { servers?: Record<string, { command?: string; args?: string[] }> } | undefined)?.servers;
  for (const server of Object.values(lsp ?? {})) {
    add(server.command, workspace, true);
    for (const arg of server.args ?? []) add(arg);
  }
  const tools = raw.tools as Record<string, { command?: unknown }> | undefined;
  for (const tool of Object.values(tools && typeof tools === "object" ? tools : {})) {
    if (Array.isArray(tool?.command)) tool.command.forEach((word, i) => add(word, workspace, i === 0));
  }
  // Hooks run on every call they match: a script they name is as much code as a Makefile.
  for (const hook of [...(config.hooks?.beforeCall ?? []), ...(config.hooks?.afterCall ?? [])]) {
    const words = typeof hook.command === "string" ? hook.command.split(/\s+/) : hook.command;
    words.forEach((word, i) => add(word, workspace, i === 0));
  }
  return [...found];
}
