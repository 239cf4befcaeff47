import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configuredCodeFiles } from "../../src/config/code-files.js";
import { openSession } from "../../src/session.js";
import { useTempWorkspace } from "../support/tools.js";

const ws = useTempWorkspace();

describe("files the configuration runs are code: writing one needs a person in every mode", () => {
  const CONFIG = {
    mcpServers: {
      local: { command: "node", args: ["scripts/server.mjs", "--port", "3000"] },
      nested: { command: "./bin/serve", cwd: "tools" },
      remote: { url: "https://example.test/mcp" },
    },
    lsp: { servers: { mine: { command: "./lsp/run.sh", args: ["--stdio"], extensions: [".x"] } } },
    tools: { fmt: { description: "Formats.", command: ["./scripts/fmt.sh", "{file}"], effect: "write" } },
  };

  it("finds each workspace file in commands and arguments, not programs on PATH, options or placeholders", () => {
    const found = configuredCodeFiles(CONFIG as never, ws.dir).sort();
    expect(found).toEqual(["lsp/run.sh", "scripts/fmt.sh", "scripts/server.mjs", "tools/bin/serve"]);
  });

  it("write_file over a configured server's script asks, even in mode all; other files do not", async () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ ...CONFIG, approval: "all" }));
    mkdirSync(path.join(ws.dir, "scripts"));
    writeFileSync(path.join(ws.dir, "scripts", "server.mjs"), "// the real server\n");
    const session = await openSession({ workspace: ws.dir, mcp: false });
    try {
      for (const target of ["scripts/server.mjs", "scripts/fmt.sh", "lsp/run.sh", "tools/bin/serve"]) {
        const out = await session.runner.run({ name: "write_file", args: { path: target, content: "evil\n", createDirs: true } });
        expect(out.status, target).toBe("rejected");
        expect(out.content, target).toMatch(/run by tackle's configuration/);
      }
      const plain = await session.runner.run({ name: "write_file", args: { path: "notes.txt", content: "fine\n" } });
      expect(plain.status).toBe("success");
      expect(readFileSync(path.join(ws.dir, "scripts", "server.mjs"), "utf8")).toBe("// the real server\n");
    } finally {
      await session.close();
    }
  });
});
