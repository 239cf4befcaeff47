import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openSystemBrowser } from "../../../src/tools/google/open-browser.js";

const linux = process.platform === "linux";
let bin: string;
let saved: NodeJS.ProcessEnv;

beforeEach(() => {
  bin = mkdtempSync(path.join(tmpdir(), "tackle-opener-"));
  saved = { ...process.env };
});
afterEach(() => {
  process.env = saved;
  rmSync(bin, { recursive: true, force: true });
});

/** A stand-in xdg-open that records the URL and exits with `code`. */
function fakeOpener(code: number): string {
  const log = path.join(bin, "opened.txt");
  writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${log}'\nexit ${code}\n`);
  chmodSync(path.join(bin, "xdg-open"), 0o755);
  return log;
}

describe.runIf(linux)("openSystemBrowser (Linux)", () => {
  it("runs xdg-open with the URL and reports success", async () => {
    const log = fakeOpener(0);
    process.env["PATH"] = `${bin}:${saved["PATH"] ?? ""}`;
    process.env["DISPLAY"] = ":0";
    const url = "http://127.0.0.1:9/o/oauth2/v2/auth?client_id=a&state=b";
    expect(await openSystemBrowser(url)).toBe(true);
    expect(readFileSync(log, "utf8")).toBe(url);
  });

  it("reports failure when xdg-open fails", async () => {
    fakeOpener(3);
    process.env["PATH"] = `${bin}:${saved["PATH"] ?? ""}`;
    process.env["DISPLAY"] = ":0";
    expect(await openSystemBrowser("http://127.0.0.1:9/")).toBe(false);
  });

  it("reports failure when there is no opener at all", async () => {
    process.env["PATH"] = bin;
    process.env["DISPLAY"] = ":0";
    expect(await openSystemBrowser("http://127.0.0.1:9/")).toBe(false);
  });

  it("does not try without a display", async () => {
    const log = fakeOpener(0);
    process.env["PATH"] = `${bin}:${saved["PATH"] ?? ""}`;
    delete process.env["DISPLAY"];
    delete process.env["WAYLAND_DISPLAY"];
    expect(await openSystemBrowser("http://127.0.0.1:9/")).toBe(false);
    expect(existsSync(log)).toBe(false);
  });
});
