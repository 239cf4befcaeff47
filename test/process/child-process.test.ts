import { execFileSync, spawnSync as spawnSyncReal } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { execFile, spawn, spawnSync } from "../../src/process/child-process.js";
import { CLI } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

describe("node:child_process, loaded on first use", () => {
  it("runs programs as the module's own functions do, promisify(execFile) included", async () => {
    expect(await promisify(execFile)("echo", ["a"])).toEqual({ stdout: "a\n", stderr: "" });
    expect(String(spawnSync("echo", ["b"]).stdout)).toBe("b\n");
    const child = spawn("echo", ["c"]);
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
    expect(out).toBe("c\n");
  });

  it("is not loaded by importing the module, nor by listing the tools through the bundled command", () => {
    const dir = tempDir();
    try {
      const hasIt = "process.moduleLoadList.includes('NativeModule child_process')";
      const imported = execFileSync(
        process.execPath,
        ["--input-type=module", "-e", `await import("./dist/process/child-process.js"); console.log(${hasIt});`],
        {
          encoding: "utf8",
        },
      );
      expect(imported.trim()).toBe("false");
      const preload = path.join(dir.dir, "report.cjs");
      writeFileSync(preload, `process.on("exit", () => process.stderr.write("child_process loaded: " + ${hasIt}));`);
      const listed = spawnSyncReal(process.execPath, ["--require", preload, CLI, "tools", "--json", "--workspace", dir.dir], {
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(listed.status).toBe(0);
      expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ name: "shell" }));
      expect(listed.stderr).toContain("child_process loaded: false");
    } finally {
      dir.cleanup();
    }
  });
});
