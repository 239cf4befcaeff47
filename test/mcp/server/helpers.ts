import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough, type Readable } from "node:stream";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { spawnEnv } from "../../support/tools.js";
import { silentLogger } from "../../../src/core/logger.js";
import { runMcpServer, type McpServerHandle } from "../../../src/mcp/server/server.js";
import type { ToolRegistry } from "../../../src/registry/registry.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const SERVE_TOOLS = path.join(ROOT, "test/fixtures/mcp/serve-tools.ts");
/** tsx's loader by absolute URL, so children run from source whatever their working directory. */
export const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** Node with tsx, so fixtures run from source. */
export function fixtureCommand(args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", TSX, SERVE_TOOLS, ...args] };
}

export type Era = "v1" | "v2";
export type Wire = "stdio" | "http";

/** What the person behind a client answers to an elicitation; `undefined` = the client cannot elicit. */
export type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

export interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
}

/** The same few operations over the 1.x and the 2.x SDK clients. */
export interface TestClient {
  era: Era;
  listTools(): Promise<Array<Record<string, unknown>>>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>>;
  /** Elicitation requests the client received. */
  elicitations: Array<Record<string, unknown>>;
  /** How the person answers the next elicitations. */
  answer: Answer;
  /** Resolves on the next tools/list_changed. */
  nextListChanged(): Promise<void>;
  protocolVersion(): string | undefined;
  close(): Promise<void>;
  /** The spawned server's pid (stdio). */
  pid?: number;
}

export interface ConnectOptions {
  era: Era;
  wire: Wire;
  /** stdio: arguments for the fixture server. */
  serverArgs?: string[];
  /** http: the server's URL. */
  url?: string;
  headers?: Record<string, string>;
  /** Advertise elicitation (default true). */
  elicitation?: boolean;
  /** 2.x only: negotiate (probe) instead of pinning 2026-07-28. */
  negotiate?: boolean;
}

export async function connect(options: ConnectOptions): Promise<TestClient> {
  return options.era === "v1" ? connectV1(options) : connectV2(options);
}

function listChangedWaiter() {
  let waiters: Array<() => void> = [];
  return {
    fire: () => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    },
    next: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
}

async function connectV1(options: ConnectOptions): Promise<TestClient> {
  const elicit = options.elicitation ?? true;
  const client = new ClientV1({ name: "test-v1", version: "1.0.0" }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  const state: Pick<TestClient, "elicitations" | "answer"> = { elicitations: [], answer: { action: "accept", content: { approve: true } } };
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      state.elicitations.push(request.params as Record<string, unknown>);
      return state.answer;
    });
  }
  const changed = listChangedWaiter();
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed.fire());
  let pid: number | undefined;
  if (options.wire === "stdio") {
    const cmd = fixtureCommand(options.serverArgs ?? []);
    const transport = new StdioV1({
      env: spawnEnv(),
      ...cmd,
      stderr: "pipe",
      cwd: ROOT,
    });
    await client.connect(transport);
    pid = transport.pid ?? undefined;
  } else {
    const transport = new HttpV1(new URL(options.url!), { requestInit: { headers: options.headers ?? {} } });
    await client.connect(transport);
  }
  const result: TestClient = {
    era: "v1",
    get elicitations() {
      return state.elicitations;
    },
    get answer() {
      return state.answer;
    },
    set answer(a) {
      state.answer = a;
    },
    async listTools() {
      return (await client.listTools()).tools as Array<Record<string, unknown>>;
    },
    async callTool(name, args, call = {}) {
      return (await client.callTool({ name, arguments: args }, undefined, {
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.onprogress ? { onprogress: call.onprogress } : {}),
        timeout: 20_000,
      })) as Record<string, unknown>;
    },
    nextListChanged: changed.next,
    protocolVersion: () => (client.transport as { protocolVersion?: string } | undefined)?.protocolVersion ?? undefined,
    close: () => client.close(),
    ...(pid ? { pid } : {}),
  };
  return result;
}

async function connectV2(options: ConnectOptions): Promise<TestClient> {
  const elicit = options.elicitation ?? true;
  const changed = listChangedWaiter();
  const client = new ClientV2(
    { name: "test-v2", version: "2.0.0" },
    {
      capabilities: elicit ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: options.negotiate ? "auto" : { pin: "2026-07-28" } },
      listChanged: { tools: { debounceMs: 0, onChanged: () => changed.fire() } },
    },
  );
  const state: Pick<TestClient, "elicitations" | "answer"> = { elicitations: [], answer: { action: "accept", content: { approve: true } } };
  if (elicit) {
    client.setRequestHandler("elicitation/create", async (request) => {
      state.elicitations.push(request.params as Record<string, unknown>);
      return state.answer as never;
    });
  }
  let pid: number | undefined;
  if (options.wire === "stdio") {
    const cmd = fixtureCommand(options.serverArgs ?? []);
    const transport = new StdioV2({
      env: spawnEnv(),
      ...cmd,
      stderr: "pipe",
      cwd: ROOT,
    });
    await client.connect(transport);
    pid = transport.pid ?? undefined;
  } else {
    const transport = new HttpV2(new URL(options.url!), { requestInit: { headers: options.headers ?? {} } });
    await client.connect(transport);
  }
  return {
    era: "v2",
    get elicitations() {
      return state.elicitations;
    },
    get answer() {
      return state.answer;
    },
    set answer(a) {
      state.answer = a;
    },
    async listTools() {
      return (await client.listTools(undefined, { cache: "no-store" } as never)).tools as Array<Record<string, unknown>>;
    },
    async callTool(name, args, call = {}) {
      return (await client.callTool(
        { name, arguments: args },
        {
          ...(call.signal ? { signal: call.signal } : {}),
          ...(call.onprogress ? { onprogress: call.onprogress } : {}),
          timeout: 20_000,
        },
      )) as Record<string, unknown>;
    },
    nextListChanged: changed.next,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    close: () => client.close(),
    ...(pid ? { pid } : {}),
  };
}

export interface SpawnedServer {
  url: string;
  proc: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** Waits for a server process to print its address ("listening on URL"); `stderr()` is all it has printed so far. */
export function listeningOn(proc: ChildProcess): Promise<{ url: string; stderr: () => string }> {
  let err = "";
  const stderr = () => err;
  return new Promise((resolve, reject) => {
    proc.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve({ url: m[1]!, stderr });
    });
    proc.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

/** Starts the fixture server on HTTP (port 0) and waits for its address. */
export async function spawnHttpServer(args: string[]): Promise<SpawnedServer> {
  const cmd = fixtureCommand(["--http", "0", ...args]);
  const proc = spawn(cmd.command, cmd.args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 20_000);
    proc.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${err}`));
    });
  });
  return {
    url,
    proc,
    stderr: () => err,
    stop: () => stopProcess(proc),
  };
}

/** Waits for a process to exit, sending SIGTERM (and SIGKILL after a while). */
export function stopProcess(proc: ChildProcess, signal: NodeJS.Signals | null = "SIGTERM"): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => {
    const kill = setTimeout(() => proc.kill("SIGKILL"), 5000);
    proc.once("exit", (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    if (signal) proc.kill(signal);
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function textOf(result: Record<string, unknown>): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/** A JSON-RPC message as a server wrote it on stdio. */
export type RawMessage = Record<string, unknown> & {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

/**
 * A client pinned to the 2026-07-28 era that declares form elicitation and leaves input_required
 * answers to the test, which drives each round trip by hand.
 */
export function handDrivenModernClient(name: string): ClientV2 {
  return new ClientV2(
    { name, version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      inputRequired: { autoFulfill: false },
    },
  );
}

/** Messages a server writes to `output`, one parsed object per line as they arrive, and a wait for the answer to a request (or its line as written). */
export function rawReplies(output: Readable): { reply(id: unknown): Promise<RawMessage>; line(id: unknown): Promise<string> } {
  const messages: Array<{ message: RawMessage; line: string }> = [];
  const waiters: Array<() => void> = [];
  let rest = "";
  output.on("data", (d: Buffer) => {
    rest += d.toString();
    let i;
    while ((i = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, i);
      messages.push({ message: JSON.parse(line) as RawMessage, line });
      rest = rest.slice(i + 1);
      waiters.splice(0).forEach((w) => w());
    }
  });
  const answer = async (id: unknown) => {
    for (;;) {
      const found = messages.find((m) => m.message.id === id);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    reply: async (id) => (await answer(id)).message,
    line: async (id) => (await answer(id)).line,
  };
}

/** A 2025-era client's first message, written as a raw client writes it. */
export const RAW_INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/**
 * runMcpServer over in-memory stdio, already initialized by a raw client (request id 1): `send`
 * writes one message, `input` takes bytes as they come, `replies` waits for answers by id.
 */
export async function rawStdioServer(registry: ToolRegistry): Promise<{
  server: McpServerHandle;
  input: PassThrough;
  send(message: object): void;
  replies: ReturnType<typeof rawReplies>;
}> {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = await runMcpServer({ registry, stdio: { input, output }, logger: silentLogger });
  const replies = rawReplies(output);
  const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
  try {
    send(RAW_INITIALIZE);
    await replies.reply(1);
  } catch (err) {
    await server.close();
    throw err;
  }
  return { server, input, send, replies };
}
