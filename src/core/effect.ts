/**
 * What a tool does to the world. The effect drives approval (only `read` is auto-approved in
 * `safe` mode) and maps to MCP tool annotations.
 */
export type Effect = "read" | "write" | "execute" | "network" | "destructive";

export const EFFECTS: readonly Effect[] = ["read", "write", "execute", "network", "destructive"];

/** MCP tool annotations (2025-06-18 and later). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Maps an effect to the MCP annotations a client uses to decide how careful to be. */
export function annotationsFor(effect: Effect, title?: string, idempotent?: boolean): ToolAnnotations {
  return {
    ...(title ? { title } : {}),
    readOnlyHint: effect === "read",
    destructiveHint: effect === "destructive" || effect === "execute",
    idempotentHint: idempotent ?? effect === "read",
    openWorldHint: effect === "network" || effect === "execute",
  };
}

/** The inverse of {@link annotationsFor}, for servers whose annotations are trusted. */
export function effectFromAnnotations(a: ToolAnnotations | undefined): Effect {
  if (!a) return "execute";
  if (a.readOnlyHint) return a.openWorldHint ? "network" : "read";
  if (a.destructiveHint === false) return a.openWorldHint ? "network" : "write";
  return "destructive";
}
