import { spawn, type ChildProcess } from "node:child_process";
import { constants, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../../src/core/errors.js";
import { appendFileTool } from "../../src/tools/fs/append-file.js";
import { copyFileTool } from "../../src/tools/fs/copy-file.js";
import { readFileTool } from "../../src/tools/fs/read-file.js";
import { lineReader } from "../../src/tools/lsp/locations.js";
import { createGrepTool } from "../../src/tools/search/grep.js";
import { createGlobTool } from "../../src/tools/search/glob.js";
import { listDirectoryTool } from "../../src/tools/fs/list-directory.js";
import { verifiedHits } from "../../src/tools/search/verified-hits.js";
import { openResolved, readdirResolvedSync, readResolved, readResolvedSync } from "../../src/workspace/no-follow.js";
import { mkdirBeneath } from "../../src/workspace/beneath.js";
import { createDirectoryTool } from "../../src/tools/fs/create-directory.js";
import { writeFileTool } from "../../src/tools/fs/write-file.js";
import { boundarySandbox, failure, type BoundarySandbox } from "../support/tools.js";
import { HAS_RG } from "../tools/search/helpers.js";

/*
 * A tool checks a path, then opens it. A command running meanwhile (a background job, a call run
 * beside this one) can swap a folder on that path for a link in between (one rename-exchange),
 * and the open would follow it out of the workspace, to a file no check saw. Every read and
 * append of a checked path is made through a descriptor asked where it is, and ripgrep's hits are
 * read again the same way; the file outside is neither shown nor changed.
 */

const SECRET = "oauth_token: gho_tackleSwapRaceSecret0001";
let sb: BoundarySandbox;
let real: string;
beforeEach(() => {
  sb = boundarySandbox("tackle-swap-race-");
  writeFileSync(path.join(sb.outside, "hosts.yml"), `${SECRET}\n`);
  real = path.join(sb.ws, "d", "hosts.yml");
  sb.write({ "d/hosts.yml": "decoy oauth_token: none\n" });
});
afterEach(() => sb.cleanup());

/** `d` becomes a link to the folder outside, as a swap would leave it just after a check. */
function swapped(): void {
  renameSync(path.join(sb.ws, "d"), path.join(sb.ws, "d.real"));
  symlinkSync(sb.outside, path.join(sb.ws, "d"));
}

describe("a path opened after its check", () => {
  it("is read only if it is still the file that was checked", async () => {
    expect((await readResolved(real)).toString()).toContain("decoy");
    swapped();
    for (const read of [() => readResolved(real), async () => readResolvedSync(real), () => openResolved(real)]) {
      const err = await failure(read());
      expect(err.code).toBe("INVALID_PATH");
      expect(err.message).toMatch(/changed while it was being opened .* nothing was read or written/);
    }
  });

  it("is appended to only if it is still the file that was checked", async () => {
    swapped();
    const err = await failure(openResolved(real, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW));
    expect(err).toBeInstanceOf(ToolError);
    expect(readFileSync(path.join(sb.outside, "hosts.yml"), "utf8")).toBe(`${SECRET}\n`);
  });

  it("has its missing folders made only inside the folders that were checked", async () => {
    expect(await mkdirBeneath(path.join(sb.ws, "d", "x", "y"))).toBe(path.join(sb.ws, "d", "x"));
    swapped();
    const err = await failure(mkdirBeneath(path.join(sb.ws, "d", "new", "deeper")));
    expect(err.message).toMatch(/changed while it was being written/);
    expect(readdirSync(sb.outside)).toEqual(["hosts.yml"]);
  });

  it("is listed only if it is still the folder that was checked", () => {
    expect(readdirResolvedSync(path.join(sb.ws, "d")).map((e) => e.name)).toEqual(["hosts.yml"]);
    swapped();
    expect(() => readdirResolvedSync(path.join(sb.ws, "d"))).toThrow(/ENOTDIR|changed while it was being opened/);
  });
});

describe("ripgrep's hits, read again", () => {
  const hit = (p: string, line: number, text: string) => ({ path: p, line, text, column: 0 });

  it("keep what the file says, and drop a hit from a file reached through a swapped folder or changed since", async () => {
    sb.write({
      "a.txt": "one\r\ntwo oauth_token\n",
      "bom.txt": "\ufefffirst oauth_token\n",
      "wide.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("first\r\nsecond oauth_token\n", "utf16le")]),
    });
    const ok = [hit("a.txt", 2, "two oauth_token"), hit("bom.txt", 1, "first oauth_token"), hit("wide.txt", 2, "second oauth_token")];
    expect(verifiedHits(sb.ws, ok)).toEqual({ kept: ok, dropped: 0 });
    expect(verifiedHits(sb.ws, [hit("a.txt", 1, "one changed")]).dropped).toBe(1);
    swapped();
    const forged = hit("d/hosts.yml", 1, SECRET);
    expect(verifiedHits(sb.ws, [...ok, forged])).toEqual({ kept: ok, dropped: 1 });
  });

  it("read a large file only up to its last hit", async () => {
    const filler = "x".repeat(99) + "\n";
    sb.write({ "big.log": filler.repeat(100_000) + "needle at the end\n" + filler.repeat(10) });
    const near = hit("big.log", 100_001, "needle at the end");
    expect(verifiedHits(sb.ws, [hit("big.log", 1, "x".repeat(99)), near]).kept).toHaveLength(2);
    expect(verifiedHits(sb.ws, [hit("big.log", 100_001, "needle elsewhere")]).dropped).toBe(1);
  });
});

describe("a language server's locations", () => {
  it("are quoted only from files the model could read", () => {
    sb.write({ "src/a.ts": "export const a = 1;\n", ".env": "TOKEN=x\n" });
    symlinkSync(sb.outside, path.join(sb.ws, "link-out"));
    const line = lineReader(sb.workspace);
    expect(line(path.join(sb.ws, "src/a.ts"), 0)).toBe("export const a = 1;");
    expect(line(path.join(sb.outside, "hosts.yml"), 0)).toBeUndefined();
    expect(line(path.join(sb.ws, "link-out", "hosts.yml"), 0)).toBeUndefined();
    expect(line(path.join(sb.ws, ".env"), 0)).toBeUndefined();
  });
});

describe("tools racing a process that swaps a folder for a link", { timeout: 120_000 }, () => {
  let racer: ChildProcess | undefined;
  afterEach(() => {
    racer?.kill("SIGKILL");
    racer = undefined;
  });

  /** Swaps `d` (a folder) and `l` (a link to the folder outside) as fast as renames go, until killed. */
  function startRacer(): Promise<void> {
    symlinkSync(sb.outside, path.join(sb.ws, "l"));
    mkdirSync(path.join(sb.ws, "t"));
    // A folder a tool makes at d while d is away (mkdir -p) is cleared, so the swapping goes on.
    const script = `
      const fs = require("node:fs");
      const attempt = (f) => { try { f(); } catch {} };
      process.chdir(${JSON.stringify(sb.ws)});
      fs.rmdirSync("t");
      process.stdout.write("ready\\n");
      for (;;) {
        attempt(() => fs.renameSync("d", "t"));
        attempt(() => fs.renameSync("l", "d"));
        attempt(() => fs.renameSync("t", "l"));
        if (fs.existsSync("t")) attempt(() => { fs.rmSync("d", { recursive: true, force: true }); fs.renameSync("t", "d"); });
      }`;
    racer = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    return new Promise((resolve) => racer!.stdout!.once("data", () => resolve()));
  }

  it("never show the folder outside, change it or make a folder there (reads, searches, listings, writes, copies)", async () => {
    // A folder below the swapped one, in both places, for copy_file to copy.
    mkdirSync(path.join(sb.outside, "inner"));
    writeFileSync(path.join(sb.outside, "inner", "hosts.yml"), `${SECRET}\n`);
    sb.write({ "d/inner/hosts.yml": "decoy\n" });
    // A name only the folder outside holds, for the listings.
    writeFileSync(path.join(sb.outside, "outside-only.txt"), "");
    await startRacer();
    const glob = createGlobTool({ backend: "builtin" });
    const text = (p: Promise<{ content: string }>) =>
      p.then(
        (r) => r.content,
        (e: Error) => e.message,
      );
    const grep = createGrepTool(HAS_RG ? { backend: "ripgrep" } : { backend: "builtin", inProcess: true });
    const shown: string[] = [];
    for (let i = 0; i < 150; i++) {
      for (const p of ["d/hosts.yml", "l/hosts.yml"]) {
        shown.push(
          await readFileTool.execute({ path: p } as never, sb.ctx).then(
            (r) => r.content,
            (e: Error) => e.message,
          ),
        );
        await appendFileTool.execute({ path: p, content: "appended\n" } as never, sb.ctx).catch(() => undefined);
        const folder = p.replace("hosts.yml", `made-${i}`);
        await writeFileTool.execute({ path: `${folder}/sub/f.txt`, content: "x" } as never, sb.ctx).catch(() => undefined);
        await createDirectoryTool.execute({ path: `${folder}-dir/sub` } as never, sb.ctx).catch(() => undefined);
        await copyFileTool.execute({ source: `${p[0]}/inner`, dest: `copies/${i}-${p[0]}` } as never, sb.ctx).catch(() => undefined);
      }
      shown.push(await text(grep.execute({ pattern: "oauth_token" } as never, sb.ctx)));
      shown.push(await text(glob.execute({ pattern: "**/*" } as never, sb.ctx)));
      shown.push(await text(listDirectoryTool.execute({ path: ".", recursive: true } as never, sb.ctx)));
    }
    racer!.kill("SIGKILL");
    expect(shown.filter((s) => s.includes("gho_tackleSwapRaceSecret") || s.includes("outside-only"))).toEqual([]);
    expect(readFileSync(path.join(sb.outside, "hosts.yml"), "utf8")).toBe(`${SECRET}\n`);
    expect(readdirSync(sb.outside).sort()).toEqual(["hosts.yml", "inner", "outside-only.txt"]);
    // What copy_file copied came from inside the workspace.
    const copied = existsSync(path.join(sb.ws, "copies")) ? readdirSync(path.join(sb.ws, "copies"), { recursive: true }) : [];
    for (const entry of copied) {
      const file = path.join(sb.ws, "copies", String(entry));
      if (lstatSync(file).isFile()) expect(readFileSync(file, "utf8"), String(entry)).not.toContain("gho_tackleSwapRaceSecret");
    }
  });
});
