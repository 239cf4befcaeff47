import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession } from "../../../src/session.js";
import { toMcpTools } from "../../../src/adapters/mcp.js";
import { tempDir, spawnEnv } from "../../support/tools.js";
import { connect, fixtureCommand, isAlive, listeningOn, ROOT, stopProcess, textOf, TSX, waitFor } from "./helpers.js";

/** `tackle` from source, so the tests do not depend on a fresh build. */
const TACKLE = { command: process.execPath, args: ["--import", TSX, path.join(ROOT, "src/cli/main.ts")] };

describe("tackle mcp (the command) on stdio, over a real session", () => {
  let ws: { dir: string; cleanup: () => void };
  let client: Client;
  let pid: number | undefined;
  let asked = 0;
  let answer: { action: "accept" | "decline"; content?: Record<string, unknown> } = { action: "accept", content: { approve: true } };

  beforeAll(async () => {
    ws = tempDir("tackle-mcp-cli-");
    writeFileSync(path.join(ws.dir, "hello.txt"), "hello from the workspace\n");
    client = new Client({ name: "cli-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return answer;
    });
    const transport = new StdioClientTransport({
      env: spawnEnv(),
      command: TACKLE.command,
      args: [...TACKLE.args, "mcp", "--workspace", ws.dir],
      cwd: ws.dir,
      stderr: "pipe",
    });
    await client.connect(transport);
    pid = transport.pid ?? undefined;
  });

  afterAll(async () => {
    await client?.close();
    if (pid) await waitFor(() => !isAlive(pid!));
    ws?.cleanup();
  });

  it("lists exactly the session's registry: names, schemas, annotations", async () => {
    const session = await openSession({ workspace: ws.dir, mcp: false });
    try {
      const expected = toMcpTools(session.registry);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expected.map((t) => t.name));
      for (const tool of expected) {
        const got = tools.find((t) => t.name === tool.name)!;
        expect(got.inputSchema).toEqual(tool.inputSchema);
        expect(got.annotations).toEqual(tool.annotations);
        expect(got.outputSchema).toEqual(tool.outputSchema);
      }
    } finally {
      await session.close();
    }
  });

  it("runs the real read_file and write_file (approved through elicitation)", async () => {
    const read = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
    expect(read.isError ?? false).toBe(false);
    expect(textOf(read as Record<string, unknown>)).toContain("hello from the workspace");
    expect(read.structuredContent).toMatchObject({ content: "hello from the workspace" });

    // A new file is written without asking (write_file asks only to overwrite).
    const created = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "first" } });
    expect(created.isError ?? false).toBe(false);
    expect(asked).toBe(0);

    answer = { action: "decline" };
    const refused = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "second" } });
    expect(refused.isError).toBe(true);
    expect(asked).toBe(1);
    expect(readFileSync(path.join(ws.dir, "out.txt"), "utf8")).toBe("first");

    answer = { action: "accept", content: { approve: true } };
    const written = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "second" } });
    expect(written.isError ?? false).toBe(false);
    expect(asked).toBe(2);
    expect(readFileSync(path.join(ws.dir, "out.txt"), "utf8")).toBe("second");
  });

  it("keeps the workspace boundary", async () => {
    const outside = await client.callTool({ name: "read_file", arguments: { path: "../../etc/passwd" } });
    expect(outside.isError).toBe(true);
    expect(textOf(outside as Record<string, unknown>)).toContain("INVALID_PATH");
  });
});

describe("tackle mcp serves proxied MCP tools too", () => {
  it("lists and runs {server}__{tool} from a configured MCP server, asking first (untrusted server)", async () => {
    const ws = tempDir("tackle-mcp-cli-proxy-");
    const inner = fixtureCommand(["--workspace", ws.dir]);
    writeFileSync(
      path.join(ws.dir, "tackle.config.json"),
      JSON.stringify({ mcpServers: { inner: { command: inner.command, args: inner.args } } }),
    );
    let asked = 0;
    const client = new Client({ name: "proxy-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: "accept", content: { approve: true } };
    });
    const transport = new StdioClientTransport({
      env: spawnEnv(),
      command: TACKLE.command,
      args: [...TACKLE.args, "mcp", "--workspace", ws.dir],
      cwd: ws.dir,
      stderr: "pipe",
    });
    try {
      await client.connect(transport);
      const names = await waitFor(async () => {
        const listed = (await client.listTools()).tools.map((t) => t.name);
        return listed.includes("inner__echo") ? listed : undefined;
      }, 20_000);
      expect(names).toContain("read_file");
      const echoed = await client.callTool({ name: "inner__echo", arguments: { text: "through two servers" } });
      expect(echoed.isError ?? false).toBe(false);
      expect(textOf(echoed as Record<string, unknown>)).toContain("through two servers");
      expect(asked).toBe(1);
    } finally {
      const pid = transport.pid;
      await client.close();
      if (pid) await waitFor(() => !isAlive(pid));
      // The configured server tackle started is gone with it.
      await waitFor(() => !execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).includes(ws.dir));
      ws.cleanup();
    }
  });
});

describe("tackle mcp on stdio: lifetime", () => {
  it("exits by itself (code 0) when the client closes stdin", async () => {
    const ws = tempDir("tackle-mcp-cli-eof-");
    const proc = spawn(TACKLE.command, [...TACKLE.args, "mcp", "--workspace", ws.dir], { cwd: ws.dir, stdio: ["pipe", "pipe", "pipe"] });
    try {
      let out = "";
      const answered = new Promise<void>((resolve) =>
        proc.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes('"id":1')) resolve();
        }),
      );
      proc.stdin!.write(
        `${JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "eof", version: "1" } },
        })}\n`,
      );
      await answered;
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        proc.once("exit", (code, signal) => resolve({ code, signal })),
      );
      proc.stdin!.end();
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      await stopProcess(proc, "SIGKILL");
      ws.cleanup();
    }
  });
});

describe("tackle mcp --http", () => {
  it("serves a 2.x client at 127.0.0.1, and stops on SIGTERM", async () => {
    const ws = tempDir("tackle-mcp-cli-http-");
    const proc = spawn(TACKLE.command, [...TACKLE.args, "mcp", "--workspace", ws.dir, "--http", "0"], {
      cwd: ws.dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      const { url, stderr } = await listeningOn(proc);
      const err = stderr();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      // A token by default: printed, and kept in a file only this user can read.
      const token = /Authorization: Bearer (\S+) \(kept in (\S+)\)/.exec(err);
      expect(token).not.toBeNull();
      expect(readFileSync(token![2]!, "utf8").trim()).toBe(token![1]);
      expect(statSync(token![2]!).mode & 0o777).toBe(0o600);
      await expect(connect({ era: "v2", wire: "http", url })).rejects.toThrow(/401|authoriz/i);
      const client = await connect({ era: "v2", wire: "http", url, headers: { Authorization: `Bearer ${token![1]}` } });
      try {
        expect((await client.listTools()).map((t) => t.name)).toContain("read_file");
      } finally {
        await client.close();
      }
      expect(await stopProcess(proc)).toBe(0);
      expect(out).toBe("");
      expect(existsSync(token![2]!)).toBe(false);
    } finally {
      await stopProcess(proc, "SIGKILL");
      ws.cleanup();
    }
  });

  it.runIf(process.getuid?.() === 0)(
    "another local user (nobody) can neither call it nor read its token; with --no-token they can",
    async () => {
      const ws = tempDir("tackle-mcp-cli-uid-");
      const started = async (extra: string[]) => {
        const proc = spawn(TACKLE.command, [...TACKLE.args, "mcp", "--workspace", ws.dir, "--http", "0", ...extra], {
          cwd: ws.dir,
          stdio: ["ignore", "ignore", "pipe"],
        });
        let err = "";
        const url = await new Promise<string>((resolve, reject) => {
          proc.stderr!.on("data", (d: Buffer) => {
            err += d.toString();
            const m = /listening on (\S+)/.exec(err);
            if (m && (extra.length > 0 || /kept in/.test(err))) resolve(m[1]!);
          });
          proc.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
        });
        return { proc, url, file: /\(kept in (\S+)\)/.exec(err)?.[1] };
      };
      /** What user nobody gets for an MCP initialize request, and whether it can read `file`. */
      const asNobody = (url: string, file: string | undefined) => {
        const body = {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        };
        const script =
          `fetch(${JSON.stringify(url)}, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, ` +
          `body: ${JSON.stringify(JSON.stringify(body))} }).then((r) => console.log(r.status));` +
          (file
            ? `try { require("fs").readFileSync(${JSON.stringify(file)}); console.log("READ"); } catch { console.log("NO-READ"); }`
            : "");
        const other = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, "-e", script], { encoding: "utf8", timeout: 60_000 });
        return other.stdout.split("\n").filter(Boolean).sort();
      };
      try {
        const guarded = await started([]);
        try {
          expect(guarded.file).toBeDefined();
          expect(asNobody(guarded.url, guarded.file)).toEqual(["401", "NO-READ"]);
        } finally {
          await stopProcess(guarded.proc, "SIGKILL");
        }
        const open = await started(["--no-token"]);
        try {
          expect(asNobody(open.url, undefined)).toEqual(["200"]);
        } finally {
          await stopProcess(open.proc, "SIGKILL");
        }
      } finally {
        ws.cleanup();
      }
    },
  );

  it("refuses a non-loopback --host with --no-token (exit 2)", async () => {
    const proc = spawn(TACKLE.command, [...TACKLE.args, "mcp", "--http", "0", "--host", "0.0.0.0", "--no-token"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TACKLE_MCP_TOKEN: "" },
    });
    let err = "";
    proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
    expect(code).toBe(2);
    expect(err).toContain("without a bearer token");
  });
});
