import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSession, type Session } from "../../../src/session.js";
import { tempDir } from "../../support/tools.js";

let ws: ReturnType<typeof tempDir>;
let session: Session | undefined;
beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "main.zig"), "const x = 1;\n");
});
afterEach(async () => {
  await session?.close();
  ws.cleanup();
});

describe("LSP tools without a language server for the file", () => {
  it("are listed, and a call says what to configure instead of the tool being missing", async () => {
    session = await openSession({ workspace: ws.dir, toolset: "editor", approval: "all", mcp: false });
    for (const name of ["diagnostics", "symbols", "hover", "definition", "references"]) expect(session.registry.has(name), name).toBe(true);
    const out = await session.runner.run({ name: "diagnostics", args: { path: "main.zig" } });
    expect(out.error?.code).toBe("UNAVAILABLE");
    expect(out.error?.message).toMatch(/No language server handles "\.zig" files/);
    expect(out.error?.message).toMatch(/lsp\.servers/);
  });
});
