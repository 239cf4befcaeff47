import { readFileSync } from "node:fs";
import { z } from "zod";
import {
  DefinitionRequest,
  DocumentSymbolRequest,
  HoverRequest,
  ReferencesRequest,
  type Location,
  type LocationLink,
  type Position,
} from "vscode-languageserver-protocol/node";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolContext } from "../../core/tool.js";
import { TOOL_LSP } from "./names.js";
import type { LspManager } from "./lsp-manager.js";
import { formatDiagnostics, formatHover, formatLocations, formatSymbols } from "./format.js";

const pathArg = z.string().describe("A source file in the workspace");
const positionArgs = z.object({
  path: pathArg,
  line: z.number().int().min(1).describe("1-based line number"),
  col: z.number().int().min(1).describe("1-based column of the symbol"),
});

const scope = {
  kind: "path" as const,
  subjects: async ({ path }: { path: string }, ctx: ToolContext) => [(await ctx.workspace.resolve(path)).relative],
};

/** Resolves the file, syncs it with its server and checks the position is in it. */
async function open(manager: LspManager, args: { path: string; line?: number; col?: number }, ctx: ToolContext) {
  const file = await ctx.workspace.resolve(args.path);
  const client = manager.clientFor(file.absolute, ctx.workspace.root);
  const uri = await client.sync(file.absolute);
  let position: Position | undefined;
  if (args.line !== undefined && args.col !== undefined) {
    const lines = (client.text(uri) ?? "").split("\n");
    if (args.line > lines.length) {
      throw new ToolError("INVALID_ARGS", `line ${args.line} is past the end of ${file.relative} (${lines.length} lines).`);
    }
    position = { line: args.line - 1, character: Math.min(args.col - 1, lines[args.line - 1]!.length) };
  }
  return { file, client, uri, position, connection: await client.connection() };
}

function lineReader(): (file: string, line: number) => string | undefined {
  const cache = new Map<string, string[]>();
  return (file, line) => {
    let lines = cache.get(file);
    if (!lines) {
      try {
        lines = readFileSync(file, "utf8").split("\n");
      } catch {
        lines = [];
      }
      cache.set(file, lines);
    }
    return lines[line];
  };
}

function toLocations(result: Location | Location[] | LocationLink[] | null): Location[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((l) => ("targetUri" in l ? { uri: l.targetUri, range: l.targetSelectionRange } : l));
}

/** Spec 002's LSP tools, answered by language servers the manager starts on demand. */
export function createLspTools(manager: LspManager) {
  const common = { effect: "read" as const, cacheable: false, scope };
  return [
    defineTool({
      ...common,
      name: TOOL_LSP.diagnostics,
      description: loadDescription(import.meta.url, "diagnostics.txt"),
      input: z.object({ path: pathArg }),
      execute: async (args, ctx) => {
        const { file, client, uri } = await open(manager, args, ctx);
        const items = await client.diagnostics(uri, ctx.signal);
        return { content: formatDiagnostics(file.relative, items), structured: { diagnostics: items } };
      },
    }),
    defineTool({
      ...common,
      name: TOOL_LSP.symbols,
      description: loadDescription(import.meta.url, "symbols.txt"),
      input: z.object({ path: pathArg }),
      execute: async (args, ctx) => {
        const { file, uri, connection } = await open(manager, args, ctx);
        const symbols = (await connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } })) ?? [];
        return formatSymbols(file.relative, symbols);
      },
    }),
    defineTool({
      ...common,
      name: TOOL_LSP.hover,
      description: loadDescription(import.meta.url, "hover.txt"),
      input: positionArgs,
      execute: async (args, ctx) => {
        const { uri, position, connection } = await open(manager, args, ctx);
        return formatHover(await connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: position! }));
      },
    }),
    defineTool({
      ...common,
      name: TOOL_LSP.definition,
      description: loadDescription(import.meta.url, "definition.txt"),
      input: positionArgs,
      execute: async (args, ctx) => {
        const { uri, position, connection } = await open(manager, args, ctx);
        const result = await connection.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position: position! });
        return formatLocations(
          toLocations(result),
          ctx.workspace,
          lineReader(),
          "No definition found at that position; point col at a symbol's name.",
        );
      },
    }),
    defineTool({
      ...common,
      name: TOOL_LSP.references,
      description: loadDescription(import.meta.url, "references.txt"),
      input: positionArgs,
      execute: async (args, ctx) => {
        const { uri, position, connection } = await open(manager, args, ctx);
        const result = await connection.sendRequest(ReferencesRequest.type, {
          textDocument: { uri },
          position: position!,
          context: { includeDeclaration: true },
        });
        return formatLocations(
          result ?? [],
          ctx.workspace,
          lineReader(),
          "No references found at that position; point col at a symbol's name.",
        );
      },
    }),
  ];
}
