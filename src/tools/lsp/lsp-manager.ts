import path from "node:path";
import { ToolError } from "../../core/errors.js";
import { LspClient } from "./lsp-client.js";
import type { LspServerConfig } from "./lsp-config.js";
import type { Confine } from "../../process/git-guard.js";

/** What to install for the files tackle finds a server for by itself. */
const INSTALL: Readonly<Record<string, string>> = Object.fromEntries([
  ...[".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"].map((e) => [
    e,
    "typescript-language-server (npm install -g typescript-language-server typescript)",
  ]),
  [".py", "pyright (npm install -g pyright) or pylsp (pip install python-lsp-server)"],
]);

/** One client per configured server and workspace root, chosen by file extension. */
export class LspManager {
  readonly #servers: Record<string, LspServerConfig>;
  readonly #clients = new Map<string, LspClient>();
  readonly #confine: Confine | undefined;
  readonly #hidden: ((root: string) => Promise<string>) | undefined;

  /**
   * `confine` wraps a server's command to run it in the sandbox (see sandbox/read-only.ts); `hidden`
   * says what the sandbox hides in a root, so a server is started afresh when that changes.
   */
  constructor(servers: Record<string, LspServerConfig>, confine?: Confine, hidden?: (root: string) => Promise<string>) {
    this.#servers = servers;
    this.#confine = confine;
    this.#hidden = hidden;
  }

  clientFor(file: string, root: string): LspClient {
    const ext = path.extname(file).toLowerCase();
    const entry = Object.entries(this.#servers).find(([, s]) => s.extensions.includes(ext));
    if (!entry) {
      const known = [...new Set(Object.values(this.#servers).flatMap((s) => s.extensions))];
      const install = INSTALL[ext];
      throw new ToolError(
        "UNAVAILABLE",
        `No language server handles "${ext || path.basename(file)}" files` +
          (known.length ? ` (servers here handle ${known.join(", ")})` : " (none is installed or configured)") +
          `. ${install ? `Install ${install}, or add` : "Add"} one under "lsp.servers" in tackle.config.json ` +
          `({ "command": "...", "args": [...], "extensions": ["${ext || ".ext"}"] }). Until then, use grep and read_file.`,
        { recoverable: false },
      );
    }
    const key = `${entry[0]}\u0000${root}`;
    let client = this.#clients.get(key);
    if (!client)
      this.#clients.set(
        key,
        (client = new LspClient(entry[1], root, entry[1].sandbox === false ? undefined : this.#confine, this.#hidden)),
      );
    return client;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#clients.values()].map((c) => c.close()));
    this.#clients.clear();
  }
}
