import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded the first time it is needed, synchronously, then kept. Libraries that
 * only some calls use (HTML parsers, the HTTP client, the JSON Schema validator) cost start-up
 * time for every run when imported at the top; this moves that cost to the first call that uses them.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
