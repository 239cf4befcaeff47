import { z } from "zod";
import type { Position } from "vscode-languageserver-protocol/node";
import { ToolError } from "../../core/errors.js";
import type { ToolContext } from "../../core/tool.js";
import type { LspManager } from "./lsp-manager.js";
import { resolveArg } from "../resolve-arg.js";

const pathArg = z.string().describe("A source file in the workspace");

/** The arguments of tools that ask about a whole file. */
export const fileArgs = z.object({ path: pathArg });

/** The arguments of tools that ask about one position in a file. */
export const positionArgs = z.object({
  path: pathArg,
  line: z.number().int().min(1).describe("1-based line number"),
  col: z.number().int().min(1).describe("1-based column of the symbol"),
});

/** What every language-server tool shares: reads only, never cached (the server's view changes), rules match the file. */
export const lspToolBase = {
  effect: "read" as const,
  cacheable: false,
  scope: {
    kind: "path" as const,
    subjects: ({ path }: { path: string }, ctx: ToolContext) => [resolveArg(ctx, path).relative],
  },
};

/** Resolves the file, syncs it with its server and checks the position is in it. */
export async function openDocument(manager: LspManager, args: { path: string; line?: number; col?: number }, ctx: ToolContext) {
  const file = resolveArg(ctx, args.path);
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
