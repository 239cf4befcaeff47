import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, runCliInTerminal } from "./run-cli.js";
import { runProcess } from "../support/run-process.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "a.txt"), "alpha\nbeta\n");
});
afterEach(() => ws.cleanup());

const call = (tool: string, args: unknown, ...extra: string[]) =>
  runCli(["call", tool, "--args", JSON.stringify(args), "--workspace", ws.dir, ...extra]);

describe("tackle tools", () => {
  it("lists tools as JSON with name, description, inputSchema, outputSchema (when the tool has one) and effect", async () => {
    const r = await runCli(["tools", "--json", "--workspace", ws.dir]);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    const read = tools.find((t) => t.name === "read_file");
    expect(read).toMatchObject({ effect: "read", inputSchema: { type: "object" } });
    expect(Object.keys(read!).sort()).toEqual(["description", "effect", "inputSchema", "name", "outputSchema"]);
    expect(read!.outputSchema).toMatchObject({ type: "object" });
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it("lists tools as text, and a spec's toolset on request", async () => {
    const r = await runCli(["tools", "--workspace", ws.dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^read_file\s+read\s+/m);
    const coding = await runCli(["tools", "--json", "--toolset", "coding", "--workspace", ws.dir]);
    const names = (JSON.parse(coding.stdout) as Array<{ name: string }>).map((t) => t.name);
    expect(names).toContain("edit");
    expect(names).not.toContain("edit_file");
  });
});

describe("npx tackle in the clone", () => {
  it("finds the clone's own build in node_modules/.bin, so npx neither installs nor rebuilds it", async () => {
    // npm puts no package's own bin there; without this link npx installs the clone into its cache,
    // running the build each time. `prepare` makes it (scripts/link-bin.mjs).
    const root = path.resolve(import.meta.dirname, "../..");
    const link = path.join(root, "node_modules", ".bin", "tackle");
    expect(realpathSync(link)).toBe(realpathSync(path.join(root, "dist", "cli", "main.cjs")));
    const r = await runProcess(link, ["--version"], { cwd: root, timeoutMs: 120_000 });
    expect(r.status, r.stderr).toBe(0);
  });
});

describe("tackle call", () => {
  it("takes arguments as key=value, each read by its parameter's type", async () => {
    const r = await runCli(["call", "read_file", "path=a.txt", "limit=1", "--json", "--workspace", ws.dir]);
    expect(r.code, r.stderr).toBe(0);
    const outcome = JSON.parse(r.stdout) as { content: string };
    expect(outcome.content).toContain("alpha");
    expect(outcome.content).not.toContain("beta\n");
    const misspelt = await runCli(["call", "read_file", "path=a.txt", "limt=1", "--workspace", ws.dir]);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/did you mean "limit"/);
    const wrongType = await runCli(["call", "read_file", "path=a.txt", "limit=two", "--workspace", ws.dir]);
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toMatch(/limit takes a number/);
    // A parameter the tool lacks reaches the tool's own check, whose words are for a model.
    const foreign = await runCli(["call", "read_file", "path=a.txt", "colour=red", "--workspace", ws.dir]);
    expect(foreign.stderr).toMatch(/^Invalid arguments: colour: unknown parameter/m);
    expect(foreign.stderr).not.toMatch(/Invalid arguments: Invalid arguments|Fix the arguments and call/);
    expect(foreign.stderr).toMatch(/Run tackle tools read_file/);
  });

  it("takes the arguments as one JSON object too, alone or with key=value", async () => {
    const r = await runCli(["call", "read_file", '{"path":"a.txt","limit":1}', "--json", "--workspace", ws.dir]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { content: string }).content).toMatch(/alpha/);
    const mixed = await runCli(["call", "read_file", '{"path":"a.txt"}', "limit=1", "--json", "--workspace", ws.dir]);
    expect((JSON.parse(mixed.stdout) as { content: string }).content).not.toContain("beta\n");
    const broken = await runCli(["call", "read_file", '{"path": a.txt}', "--workspace", ws.dir]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/is not valid JSON/);
    const list = await runCli(["call", "read_file", '{"path":"a.txt"} extra', "--workspace", ws.dir]);
    expect(list.code).toBe(2);
  });

  it("prints the result and exits 0", async () => {
    const r = await call("read_file", { path: "a.txt" });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/alpha/);
  });

  it("prints the whole outcome with --json", async () => {
    const r = await call("read_file", { path: "a.txt" }, "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "success", toolName: "read_file", approvedBy: "auto" });
  });

  it("exits 2 for an unknown tool or invalid arguments", async () => {
    const unknown = await call("read_fil", {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Did you mean "read_file"/);
    const badJson = await runCli(["call", "read_file", "--args", "{nope", "--workspace", ws.dir]);
    expect(badJson.code).toBe(2);
    const wrongType = await call("read_file", { path: 7 });
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toMatch(/path/);
    const badFlag = await runCli(["call", "read_file", "--bogus"]);
    expect(badFlag.code).toBe(2);
  });

  it("exits 1 when the tool fails", async () => {
    const r = await call("read_file", { path: "missing.txt" }, "--json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe("FILE_NOT_FOUND");
  });

  it("rejects (exit 3) what needs approval when no terminal is attached, and changes nothing", async () => {
    await call("read_file", { path: "a.txt" });
    const r = await call("write_file", { path: "a.txt", content: "overwritten" }, "--json");
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "rejected" });
    expect(JSON.parse(r.stdout).content).toMatch(/--approval all/);
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  it("runs it with --approval all", async () => {
    await call("read_file", { path: "a.txt" }); // as a model would before replacing it
    const r = await call("write_file", { path: "a.txt", content: "overwritten" }, "--approval", "all");
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("overwritten");
  });

  it("speaks to a person, not a model: what is required, the command to type, no doubled punctuation", async () => {
    const missing = await runCli(["call", "read_file", "--workspace", ws.dir]);
    expect(missing.stderr).toMatch(/Invalid arguments: path is required \(a string\)\./);
    const typo = await runCli(["call", "read_file", "path=a.txt", "limt=3", "--workspace", ws.dir]);
    expect(typo.stderr).toMatch(/did you mean "limit"\?\n/);
    mkdirSync(path.join(ws.dir, "sub"));
    const absent = await runCli(["call", "read_file", "path=sub/nope.txt", "--workspace", ws.dir]);
    expect(absent.stderr).toContain("Run tackle call list_directory path=sub to see what is there.");
    // --json keeps the model's words.
    const json = await runCli(["call", "read_file", "path=sub/nope.txt", "--json", "--workspace", ws.dir]);
    expect(json.stdout).toContain('Use list_directory on \\"sub\\"');
  });

  it("never suggests --approval all when it is already on", async () => {
    writeFileSync(path.join(ws.dir, "Makefile"), "all:\n");
    await call("read_file", { path: "Makefile" });
    const r = await call("write_file", { path: "Makefile", content: "x" }, "--approval", "all");
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/To run it, call it from a terminal or allow it for good:\n {2}tackle rules add 'write_file\(Makefile\)'/);
    expect(r.stderr).not.toContain("--approval all");
    const json = await call("write_file", { path: "Makefile", content: "x" }, "--approval", "all", "--json");
    expect(json.stdout).not.toContain("--approval all");
    expect(readFileSync(path.join(ws.dir, "Makefile"), "utf8")).toBe("all:\n");
  });

  it("says plainly that a background job started from the command line keeps the command until it ends", async () => {
    const r = await call("shell_background", { command: "sleep 1" }, "--approval", "all");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Started job_1/);
    expect(r.stderr).toMatch(/background jobs live as long as the process that serves them, so this command waits for the job to end/);
    const list = await call("shell_background", { action: "list" });
    expect(list.stderr).not.toMatch(/live as long/);
  });

  it("reads arguments from standard input with --args -", async () => {
    const r = await runCli(["call", "read_file", "--args", "-", "--workspace", ws.dir], { input: '{"path":"a.txt"}' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/beta/);
  });

  it("applies configuration rules: a deny holds even with --approval all", async () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ permissions: { deny: ["read_file(a.txt)"] } }));
    const r = await call("read_file", { path: "a.txt" }, "--approval", "all");
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/denied by the rule "read_file\(a\.txt\)"/);
  });

  it("reports a broken configuration file", async () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), "{");
    const r = await call("read_file", { path: "a.txt" });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON/);
  });

  it("has --help everywhere", async () => {
    for (const args of [["--help"], ["call", "--help"], ["tools", "--help"]]) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stdout).toMatch(/Usage: tackle/);
    }
  });
});

describe("approval in a terminal", () => {
  it("asks, and y runs the call", async () => {
    await call("read_file", { path: "a.txt" });
    const r = await runCliInTerminal(["call", "write_file", "--args", '{"path":"a.txt","content":"yes"}', "--workspace", ws.dir], "y\n");
    expect(r.stdout.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/write_file wants to run/);
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("yes");
  });

  it("n rejects with the person's message (exit 3)", async () => {
    await call("read_file", { path: "a.txt" });
    const r = await runCliInTerminal(
      ["call", "write_file", "--args", '{"path":"a.txt","content":"no"}', "--workspace", ws.dir],
      "n\nwrong file\n",
    );
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/wrong file/);
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
  });
});

describe("tackle init", () => {
  it("writes a commented configuration that tackle reads, and never overwrites one", async () => {
    const dir = tempDir("tackle-init-");
    try {
      const first = await runCli(["init", "--workspace", dir.dir]);
      expect(first.code, first.stderr).toBe(0);
      const text = readFileSync(path.join(dir.dir, "tackle.config.json"), "utf8");
      expect(text).toMatch(/\/\/ What runs without asking a person/);
      expect(text).toContain('"mcpServers": {}');
      // the file it wrote is one tackle accepts
      const tools = await runCli(["tools", "--workspace", dir.dir]);
      expect(tools.code, tools.stderr).toBe(0);
      const again = await runCli(["init", "--workspace", dir.dir]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/already exists; nothing was written/);
      expect(readFileSync(path.join(dir.dir, "tackle.config.json"), "utf8")).toBe(text);
    } finally {
      dir.cleanup();
    }
  });
});
