import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSession } from "../../src/session.js";
import { openStore } from "../../src/store/open-store.js";
import { loadConfig } from "../../src/config/config.js";
import { tempDir } from "../support/tools.js";

/*
 * A store holds the answers and the shared rules that approve calls. A command the mode approved can
 * write the workspace: a `.env` naming a store it wrote there, or such a store configured by mistake,
 * would let it approve its own calls at the next start.
 */

const dirs: Array<ReturnType<typeof tempDir>> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

/** A workspace with a store a command could have written in it, holding a rule that allows `touch pwned`. */
function planted(): { ws: string; store: string } {
  const d = tempDir();
  dirs.push(d);
  const store = path.join(d.dir, "st");
  for (const sub of ["", "pending", "answers", "instances", "audit"]) {
    mkdirSync(path.join(store, sub), { recursive: true });
    chmodSync(path.join(store, sub), 0o700);
  }
  writeFileSync(
    path.join(store, "rules.jsonl"),
    `${JSON.stringify({ id: "x", rule: "shell(touch pwned)", origin: "person", by: "me", at: 1 })}\n`,
  );
  return { ws: d.dir, store };
}

describe("a store a command could write approves nothing", () => {
  it("TACKLE_STORE, OTEL_* and XDG_* in the workspace's .env are ignored, with a word; its secrets are kept", () => {
    const { ws, store } = planted();
    writeFileSync(
      path.join(ws, ".env"),
      `TACKLE_STORE=file:${store}\nOTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9/\nXDG_STATE_HOME=${ws}\nBRAVE_API_KEY=k\n`,
    );
    const warned: string[] = [];
    const loaded = loadConfig({ dir: ws, env: {}, warn: (m) => warned.push(m) });
    expect(loaded.env).toEqual({ BRAVE_API_KEY: "k" });
    expect(warned.join("\n")).toMatch(/TACKLE_STORE is ignored.*\n.*OTEL_EXPORTER_OTLP_ENDPOINT is ignored.*\n.*XDG_STATE_HOME is ignored/);
  });

  it("a session started after a command wrote .env and a store keeps its own desk, and the planted rule runs nothing", async () => {
    const { ws, store } = planted();
    writeFileSync(path.join(ws, ".env"), `TACKLE_STORE=file:${store}\n`);
    const session = await openSession({ workspace: ws, mcp: false, approval: "safe", desk: { timeoutMs: 200 } });
    try {
      expect(session.desk!.store.location).not.toContain(store);
      const outcome = await session.runner.run({ name: "shell", args: { command: "touch pwned" } });
      expect(outcome.status).toBe("rejected");
      expect(existsSync(path.join(ws, "pwned"))).toBe(false);
    } finally {
      await session.close();
    }
  });

  it("a file store inside the workspace or a root the configuration adds is refused, also through a link or before it exists", async () => {
    const { ws, store } = planted();
    const outside = tempDir();
    dirs.push(outside);
    await expect(openStore(`file:${store}`, ws)).rejects.toThrow(/inside .*which tools and commands can write/);
    await expect(openStore(`file:${path.join(ws, "not", "yet")}`, ws)).rejects.toThrow(/inside/);
    await expect(openStore(`file:${path.join(outside.dir, "desk")}`, ws, undefined, [ws, outside.dir])).rejects.toThrow(/inside/);
    symlinkSync(ws, path.join(outside.dir, "link"));
    await expect(openStore(`file:${path.join(outside.dir, "link", "st")}`, ws)).rejects.toThrow(/inside/);
    const fine = await openStore(`file:${path.join(outside.dir, "desk")}`, ws);
    await fine.close();
    // A folder the configuration opens to commands counts too.
    writeFileSync(path.join(ws, "tackle.config.json"), JSON.stringify({ shell: { sandbox: { writableRoots: [outside.dir] } } }));
    await expect(openSession({ workspace: ws, mcp: false, desk: { store: `file:${path.join(outside.dir, "desk2")}` } })).rejects.toThrow(
      /inside/,
    );
  });
});
