import path from "node:path";
import { ToolError } from "../../core/errors.js";
import { LspClient } from "./lsp-client.js";
import type { LspServerConfig } from "./lsp-config.js";

/** One client per configured server and workspace root, chosen by file extension. */
export class LspManager {
  readonly #servers: Record<string, LspServerConfig>;
  readonly #clients = new Map<string, LspClient>();

  constructor(servers: Record<string, LspServerConfig>) {
    this.#servers = servers;
  }

  clientFor(file: string, root: string): LspClient {
    const ext = path.extname(file).toLowerCase();
    const entry = Object.entries(this.#servers).find(([, s]) => s.extensions.includes(ext));
    if (!entry) {
      const known = [...new Set(Object.values(this.#servers).flatMap((s) => s.extensions))];
      throw new ToolError(
        "UNAVAILABLE",
        known.length
          ? `No language server handles "${ext || path.basename(file)}" files (configured ` +
              `for ${known.join(", ")}). Add one under "lsp.servers" in tackle.config.json.`
          : `No language server is installed or configured. Install typescript-language-server or add one under "lsp.servers" in tackle.config.json.`,
        { recoverable: false },
      );
    }
    const key = `${entry[0]}\u0000${root}`;
    let client = this.#clients.get(key);
    if (!client) this.#clients.set(key, (client = new LspClient(entry[1], root)));
    return client;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#clients.values()].map((c) => c.close()));
    this.#clients.clear();
  }
}
