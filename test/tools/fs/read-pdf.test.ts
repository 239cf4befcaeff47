import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileTool } from "../../../src/tools/fs/read-file.js";
import { makePdf } from "../../support/pdf.js";
import { makeSandbox, type Sandbox } from "./helpers.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const read = (args: Record<string, unknown>) => readFileTool.execute(args as never, sb.ctx);
const at = (...p: string[]) => path.join(sb.ws, ...p);

describe("read_file of a PDF", () => {
  it("returns its text page by page, numbered like any file, with windows", async () => {
    writeFileSync(at("report.pdf"), makePdf(["Quarterly report\nRevenue rose (a lot)", "Second page\nThe end"]));
    const r = await read({ path: "report.pdf" });
    expect(r.content).toContain("--- page 1 of 2 ---");
    expect(r.content).toMatch(/\s2\tQuarterly report\n\s+3\tRevenue rose \(a lot\)/);
    expect(r.content).toContain("--- page 2 of 2 ---");
    expect(r.content).toContain("The end");
    expect(r.content).toContain("(converted from PDF, 2 pages)");
    expect(r.metadata).toMatchObject({ kind: "pdf" });
    const window = await read({ path: "report.pdf", offset: 5, limit: 2 });
    expect(window.content).toMatch(/^\s+5\t--- page 2 of 2 ---\n\s+6\tSecond page\n/);
    expect(window.content).toContain("read on with offset 7");
  });

  it("finds a PDF by its content whatever its name, and describes a damaged one instead of failing", async () => {
    writeFileSync(at("download.bin"), makePdf(["hidden text"]));
    expect((await read({ path: "download.bin" })).content).toContain("hidden text");
    writeFileSync(at("broken.pdf"), Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(2000, 0x41)]));
    const broken = await read({ path: "broken.pdf" });
    expect(broken.content).toMatch(/PDF document/);
    expect(broken.isError).toBeFalsy();
  });

  it("says when a PDF has no text layer", async () => {
    writeFileSync(at("scan.pdf"), makePdf([""]));
    expect((await read({ path: "scan.pdf" })).content).toMatch(/no text layer/);
  });
});
