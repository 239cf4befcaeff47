import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Reads a tool's model-facing description from a .txt file beside its module, so the prose is
 * reviewed like UI copy and the code stays short. Call with `import.meta.url`.
 */
export function loadDescription(moduleUrl: string, file: string): string {
  return readFileSync(fileURLToPath(new URL(file, moduleUrl)), "utf8").trim();
}
