import { readResolved } from "../../workspace/no-follow.js";
import type { ChildProcess } from "node:child_process";
import { spawn } from "../../process/child-process.js";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic, ProtocolConnection } from "vscode-languageserver-protocol/node";
import { protocol } from "./protocol.js";
import { ToolError } from "../../core/errors.js";
import { killProcessGroupSync, killProcessTree } from "../../process/process-tree.js";
import { languageIdFor, type LspServerConfig } from "./lsp-config.js";
import { commandEnv } from "../../process/command-env.js";
import type { Confine } from "../../process/git-guard.js";

const STDERR_TAIL = 4_096;

interface OpenDocument {
  version: number;
  text: string;
}

/** A running language server for one workspace: started once, documents synced on demand. */
export class LspClient {
  readonly #config: LspServerConfig;
  readonly #root: string;
  #child?: ChildProcess;
  #connection?: ProtocolConnection;
  #starting?: Promise<ProtocolConnection>;
  #stderr = "";
  readonly #documents = new Map<string, OpenDocument>();
  readonly #diagnostics = new Map<string, { version?: number; items: Diagnostic[]; at: number }>();
  readonly #waiters = new Set<() => void>();
  /** The server's own temporary folder, removed when it stops (servers leave theirs behind). */
  #tmp: string | undefined;
  readonly #onExit = () => {
    if (this.#child?.pid) killProcessGroupSync(this.#child.pid);
    this.#removeTmp();
  };

  readonly #confine: Confine | undefined;
  /** Whether the running server is in the sandbox, for what its failures say. */
  #confined = false;
  readonly #hidden: ((root: string) => Promise<string>) | undefined;
  /** What the sandbox hid when the running server started (see {@link LspClient.constructor}'s `hidden`). */
  #hiddenAtStart: string | undefined;

  /**
   * `confine` wraps the server's command to run it in the sandbox; `hidden` says what the sandbox
   * hides in `root` (its secrets), so a server started before a secret appeared, which could read
   * it, is started afresh.
   */
  constructor(config: LspServerConfig, root: string, confine?: Confine, hidden?: (root: string) => Promise<string>) {
    this.#config = config;
    this.#root = root;
    this.#confine = confine;
    this.#hidden = hidden;
  }

  /** The connection, starting the server on first use, and again when what the sandbox hides has changed. */
  async connection(): Promise<ProtocolConnection> {
    if (this.#connection && this.#confined && this.#hidden && (await this.#hidden(this.#root)) !== this.#hiddenAtStart) {
      await this.close();
      this.#starting = undefined;
      this.#documents.clear();
      this.#diagnostics.clear();
    }
    if (this.#connection) return this.#connection;
    this.#starting ??= this.#start().catch((err: unknown) => {
      this.#starting = undefined;
      throw err;
    });
    return this.#starting;
  }

  async #start(): Promise<ProtocolConnection> {
    // typescript-language-server, for one, makes a folder in the temporary folder for each start
    // and never removes it: each server gets a folder of its own, removed with it.
    this.#removeTmp();
    // Noted before the sandbox is made: a secret made between the two is caught at the next call.
    this.#hiddenAtStart = this.#confine ? await this.#hidden?.(this.#root) : undefined;
    const confined = await this.#confine?.([this.#config.command, ...this.#config.args], this.#root, this.#config.env);
    this.#confined = confined !== undefined;
    // In the sandbox its /tmp is its own, gone with it.
    const tmp = confined ? undefined : (this.#tmp = mkdtempSync(path.join(os.tmpdir(), "tackle-lsp-")));
    const child = spawn(confined?.file ?? this.#config.command, confined?.args ?? this.#config.args, {
      cwd: this.#root,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      // The sandbox passes on the environment it was given; tackle's tokens never reach the server either way.
      env: confined ? confined.env : commandEnv({ TMPDIR: tmp!, TMP: tmp!, TEMP: tmp!, ...this.#config.env }),
    });
    this.#child = child;
    process.once("exit", this.#onExit);
    // Drained continuously: an unread pipe fills and stalls the server.
    child.stderr!.on("data", (d: Buffer) => (this.#stderr = (this.#stderr + d.toString("utf8")).slice(-STDERR_TAIL)));
    const spawned = new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (err) =>
        reject(
          new ToolError("UNAVAILABLE", `The language server "${this.#config.command}" could not start: ${err.message}.`, {
            recoverable: false,
          }),
        ),
      );
    });
    await spawned;
    const lsp = protocol();
    const connection = lsp.createProtocolConnection(new lsp.StreamMessageReader(child.stdout!), new lsp.StreamMessageWriter(child.stdin!));
    connection.onNotification(protocol().PublishDiagnosticsNotification.type, (params) => {
      this.#diagnostics.set(params.uri, {
        ...(params.version !== undefined ? { version: params.version } : {}),
        items: params.diagnostics,
        at: Date.now(),
      });
      for (const w of this.#waiters) w();
    });
    child.once("exit", () => {
      // A server stopped to start afresh must not clear what its successor set.
      if (this.#child !== child) return;
      this.#connection = undefined;
      this.#starting = undefined;
      this.#documents.clear();
    });
    connection.listen();
    const rootUri = pathToFileURL(this.#root).href;
    await withTimeout(
      connection.sendRequest(protocol().InitializeRequest.type, {
        // A server in the sandbox's own pid namespace cannot see tackle's pid, and would take it for gone.
        processId: this.#confined ? null : process.pid,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: "workspace" }],
        initializationOptions: this.#config.initializationOptions,
        capabilities: {
          textDocument: {
            synchronization: { didSave: false, dynamicRegistration: false },
            publishDiagnostics: { relatedInformation: false, versionSupport: true },
            hover: { contentFormat: ["markdown", "plaintext"] },
            documentSymbol: { hierarchicalDocumentSymbolSupport: true },
            definition: { linkSupport: false },
            references: {},
          },
          workspace: { workspaceFolders: true },
        },
      }),
      30_000,
      () => `The language server "${this.#config.command}" did not answer initialize within 30 s.${this.#stderrNote()}`,
    );
    await connection.sendNotification(protocol().InitializedNotification.type, {});
    this.#connection = connection;
    return connection;
  }

  #stderrNote(): string {
    const sandboxed = this.#confined
      ? " It runs read-only in the sandbox, with no network; a server that must write or fetch can run outside it with" +
        ' "sandbox": false in its lsp.servers entry.'
      : "";
    return (this.#stderr.trim() ? ` Its last output: ${this.#stderr.trim().slice(-500)}` : "") + sandboxed;
  }

  /** Opens or refreshes a document from disk, so the server sees the current text. Returns its URI. */
  async sync(file: string): Promise<string> {
    const connection = await this.connection();
    const uri = pathToFileURL(file).href;
    // The file that was checked: a folder on its way swapped for a link is refused, not followed.
    const text = (await readResolved(file)).toString("utf8");
    const open = this.#documents.get(uri);
    if (!open) {
      this.#documents.set(uri, { version: 1, text });
      await connection.sendNotification(protocol().DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId: languageIdFor(this.#config, file), version: 1, text },
      });
    } else if (open.text !== text) {
      open.version++;
      open.text = text;
      await connection.sendNotification(protocol().DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: open.version },
        contentChanges: [{ text }],
      });
    }
    return uri;
  }

  /** The text of a synced document, for quoting lines. */
  text(uri: string): string | undefined {
    return this.#documents.get(uri)?.text;
  }

  /**
   * Diagnostics for a document after its latest sync: waits for the server to publish them,
   * then for a short quiet spell (servers publish syntax, then semantic results).
   */
  async diagnostics(uri: string, signal: AbortSignal, timeoutMs = 30_000, settleMs = 600): Promise<Diagnostic[]> {
    const since = Date.now();
    const version = this.#documents.get(uri)?.version;
    const fresh = () => {
      const d = this.#diagnostics.get(uri);
      return d && (d.version === undefined ? d.at >= since - 50 || version === 1 : d.version >= (version ?? 0)) ? d : undefined;
    };
    const deadline = since + timeoutMs;
    while (Date.now() < deadline && !signal.aborted) {
      const d = fresh();
      if (d && Date.now() - d.at >= settleMs) return d.items;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(t);
          resolve();
        };
        const t = setTimeout(wake, d ? settleMs : 100);
        this.#waiters.add(wake);
      });
    }
    if (signal.aborted) throw new ToolError("CANCELLED", "Cancelled while waiting for diagnostics.");
    const d = fresh();
    if (d) return d.items;
    // Saying "no problems" when the server never answered would be a false all-clear.
    throw new ToolError(
      "TIMEOUT",
      `The language server reported no diagnostics within ${timeoutMs / 1000} s; it may still be loading the project. Try again shortly.${this.#stderrNote()}`,
      { recoverable: false },
    );
  }

  /** Shuts the server down politely, then kills what is left. */
  async close(): Promise<void> {
    process.off("exit", this.#onExit);
    const child = this.#child;
    const connection = this.#connection;
    this.#child = undefined;
    this.#connection = undefined;
    if (connection) {
      try {
        await withTimeout(connection.sendRequest(protocol().ShutdownRequest.type), 2_000, () => "shutdown timed out");
        await connection.sendNotification(protocol().ExitNotification.type);
      } catch {
        // killed below
      }
      connection.dispose();
    }
    if (child?.pid) await killProcessTree(child.pid);
    this.#removeTmp();
  }

  #removeTmp(): void {
    if (this.#tmp) rmSync(this.#tmp, { recursive: true, force: true });
    this.#tmp = undefined;
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ToolError("TIMEOUT", message())), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
