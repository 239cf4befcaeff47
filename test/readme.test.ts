import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./cli/run-cli.js";
import { tempDir } from "./support/tools.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const blocks = (lang: string) => [...readme.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);

/** `npx tackle ...` lines of the README, split into words as a shell would (they use single quotes only). */
const commands = blocks("sh")
  .flatMap((b) => b.split("\n"))
  .map((l) => l.replace(/\s+#.*$/, "").trim())
  .filter((l) => l.startsWith("npx tackle "))
  .map((l) => [...l.slice("npx tackle ".length).matchAll(/(?:[^\s']+|'[^']*')+/g)].map((m) => m[0].replace(/'([^']*)'/g, "$1")));

let ws: ReturnType<typeof tempDir>;
beforeAll(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "README.md"), readme);
});
afterAll(() => ws.cleanup());

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

describe("README", () => {
  it("gives set-up as exactly npm install and npm test", () => {
    expect(blocks("sh")[0]!.trim()).toBe("npm install\nnpm test");
  });

  it("has command lines that run as written", async () => {
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const args of commands) {
      const serving = (args[0] === "mcp" && args.includes("--http")) || (args[0] === "serve" && args.includes("--port"));
      if (serving) {
        const port = Number(args[args.indexOf(args[0] === "mcp" ? "--http" : "--port") + 1]);
        const child = spawn(process.execPath, [CLI, ...args], { cwd: ws.dir, stdio: ["pipe", "ignore", "pipe"] });
        let up = false;
        for (let i = 0; i < 100 && !up && child.exitCode === null; i++) {
          await new Promise((r) => setTimeout(r, 100));
          up = await portOpen(port);
        }
        child.kill("SIGTERM");
        expect(up, args.join(" ")).toBe(true);
        continue;
      }
      const r = await runCli(args, { cwd: ws.dir });
      expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(0);
    }
    // write_file made notes.txt; the README's later `tackle undo` took that call back.
    expect(existsSync(path.join(ws.dir, "notes.txt"))).toBe(false);
    expect(readFileSync(path.join(ws.dir, "README.md"), "utf8")).toBe(readme);
  });

  it("has a configuration example every tool group accepts", async () => {
    const config = JSON.parse(blocks("json")[0]!) as Record<string, unknown>;
    // The example's MCP server would be fetched by npx; the rest is checked as written.
    delete config.mcpServers;
    const dir = tempDir();
    try {
      writeFileSync(path.join(dir.dir, "tackle.config.json"), JSON.stringify(config));
      const r = await runCli(["tools", "--json", "--workspace", dir.dir]);
      expect(r.code, r.stderr).toBe(0);
      const denied = await runCli(["call", "shell", "--args", '{"command":"curl http://x"}', "--approval", "all", "--workspace", dir.dir]);
      expect(denied.code).toBe(3);
      // The audit log named in the example lands in the workspace, whatever the current directory.
      const logged = readFileSync(path.join(dir.dir, String(config.log)), "utf8")
        .trim()
        .split("\n");
      expect(JSON.parse(logged.at(-1)!)).toMatchObject({ toolName: "shell", status: "rejected" });
    } finally {
      dir.cleanup();
    }
  });

  it("has a library example that runs as written", async () => {
    const example = blocks("ts")[0]!;
    // Run from the package itself, so `import ... from "tackle"` resolves as it would for a user.
    const file = path.join(root, `readme-example-${process.pid}.mjs`);
    writeFileSync(file, example);
    try {
      const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [file], { cwd: root });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += String(d)));
        child.stderr.on("data", (d) => (stderr += String(d)));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/^5 /);
      expect(out.stdout).toContain("input_schema");
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("has TypeScript snippets that type-check under tsc, strict, as a user's project would", async () => {
    // Inside the package, so "tackle" resolves to this build as it would from node_modules.
    const dir = mkdtempSync(path.join(root, ".readme-typecheck-"));
    try {
      blocks("ts").forEach((code, i) => {
        // The one thing the README leaves to the reader: a model.
        const model = code.includes("toAiSdkTools")
          ? 'import type { LanguageModel } from "ai";\ndeclare const model: LanguageModel;\n'
          : "";
        writeFileSync(path.join(dir, `example-${i}.ts`), `${model}${code}\nexport {};\n`);
      });
      const compilerOptions = {
        strict: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      };
      writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
      const tsc = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { cwd: root });
        let out = "";
        child.stdout.on("data", (d) => (out += String(d)));
        child.stderr.on("data", (d) => (out += String(d)));
        child.on("close", (code) => resolve({ code, out }));
      });
      expect(tsc.code, tsc.out).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("has an AI SDK example that runs as written, given a model", async () => {
    const example = blocks("ts")[1]!;
    expect(example).toContain("toAiSdkTools(runner)");
    // The one thing the README leaves to the reader: a model. This one reads README.md, then answers.
    const model = [
      `import { MockLanguageModelV3 } from "ai/test";`,
      `const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };`,
      `const say = (text) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });`,
      `const read = { type: "tool-call", toolCallId: "c1", toolName: "read_file", input: JSON.stringify({ path: "README.md", limit: 3 }) };`,
      `const call = { content: [read], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };`,
      `const model = new MockLanguageModelV3({ doGenerate: async ({ prompt }) =>`,
      `  prompt.at(-1).role === "tool" ? say("README says: " + JSON.stringify(prompt.at(-1).content[0].output.value).slice(0, 40)) : call });`,
      ``,
    ].join("\n");
    const file = path.join(root, `readme-ai-sdk-${process.pid}.mjs`);
    writeFileSync(file, model + example);
    try {
      const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [file], { cwd: root });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += String(d)));
        child.stderr.on("data", (d) => (stderr += String(d)));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/^README says: "\s*1\\t# tackle/);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
