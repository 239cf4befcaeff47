import { chmodSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dropRelativePathEntries } from "../../src/process/safe-path.js";
import { findExecutable } from "../../src/process/find-executable.js";
import { runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

const dirs: Array<ReturnType<typeof tempDir>> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

/** A workspace holding programs named as those tackle starts, each leaving a mark where it ran. */
function planted(): { ws: string; mark: (name: string) => string } {
  const d = tempDir();
  dirs.push(d);
  const mark = (name: string) => path.join(d.dir, `ran-${name}`);
  for (const name of ["git", "rg", "bwrap", "python3", "node"]) {
    writeFileSync(path.join(d.dir, name), `#!/bin/sh\ntouch ${JSON.stringify(mark(name))}\nexit 1\n`);
    chmodSync(path.join(d.dir, name), 0o755);
  }
  return { ws: d.dir, mark };
}

describe("a relative PATH entry never makes tackle run a program from the workspace", () => {
  it("keeps only absolute entries, and says which it dropped", () => {
    const env: NodeJS.ProcessEnv = { PATH: ".:/usr/bin::bin:/bin:" };
    expect(dropRelativePathEntries(env)).toEqual([".", "(empty)", "bin", "(empty)"]);
    expect(env.PATH).toBe("/usr/bin:/bin");
    expect(dropRelativePathEntries(env)).toEqual([]);
    expect(findExecutable("sh", { dirs: [".", "", "/bin"] })).toBe("/bin/sh");
  });

  for (const [name, pathValue] of [
    ["'.' first", `.:${process.env.PATH}`],
    ["an empty entry (a trailing ':')", `:${process.env.PATH}:`],
  ] as const) {
    it(`git, ripgrep and the sandbox are the system's with ${name} in PATH`, async () => {
      const { ws, mark } = planted();
      writeFileSync(path.join(ws, "a.txt"), "hi\n");
      const env = { PATH: pathValue, GIT_CEILING_DIRECTORIES: path.dirname(ws) };
      for (const args of [
        ["git_status"],
        ["grep", "pattern=hi"],
        ["shell", "command=echo x"],
        ["run_code", "language=python", "code=print(1)"],
      ]) {
        await runCli(["call", ...args, "--approval", "all"], { cwd: ws, env });
      }
      for (const program of ["git", "rg", "bwrap", "python3", "node"]) expect(existsSync(mark(program)), program).toBe(false);
    }, 120_000);
  }
});
