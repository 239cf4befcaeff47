import { createHash } from "node:crypto";

/** The separator spec 000 puts between server and tool: `whatsapp__send_message`. */
export const NAME_SEPARATOR = "__";

/** Longest tool name every model API accepts. */
export const MAX_TOOL_NAME = 64;

const VALID = /^[A-Za-z0-9_-]{1,64}$/;
const HASH_CHARS = 10;

/** Replaces every character a model API would refuse with `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * A short, stable hash of a (server, tool) pair. The NUL between them keeps `a__b` + `c` and
 * `a` + `b__c` apart, which the joined name cannot.
 */
export function nameHash(server: string, tool: string): string {
  return createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, HASH_CHARS);
}

/**
 * The name a proxied tool would have with nothing in the way: `{server}__{tool}` when that is a
 * valid name, otherwise its sanitised form cut to fit, with a hash of the original pair
 * appended so that two different pairs never end up with the same name.
 */
export function hashedToolName(server: string, tool: string): string {
  const base = sanitizeName(`${server}${NAME_SEPARATOR}${tool}`);
  const room = MAX_TOOL_NAME - 1 - HASH_CHARS;
  return `${base.slice(0, room).replace(/_+$/, "") || "mcp"}_${nameHash(server, tool)}`;
}

/**
 * Chooses the registry name of `tool` from `server`.
 *
 * - `{server}__{tool}` when it is valid and free;
 * - otherwise (invalid characters, longer than 64, or taken by a built-in or another server's
 *   tool) the hashed form of {@link hashedToolName}, which depends only on the pair, so it is
 *   stable from run to run;
 * - `undefined` when even that is taken: the caller reports the collision instead of replacing
 *   anything.
 */
export function proxyToolName(server: string, tool: string, isTaken: (name: string) => boolean = () => false): string | undefined {
  const plain = `${server}${NAME_SEPARATOR}${tool}`;
  if (VALID.test(plain) && !isTaken(plain)) return plain;
  const hashed = hashedToolName(server, tool);
  return isTaken(hashed) ? undefined : hashed;
}
