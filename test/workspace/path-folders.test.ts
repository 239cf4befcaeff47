import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceFoldersOnPath } from "../../src/workspace/path-folders.js";
import { runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

const dirs: Array<ReturnType<typeof tempDir>> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe("a folder of the workspace on PATH holds code", () => {
  it("is found as it really is, the workspace itself included, and nothing outside", () => {
    const d = tempDir();
    dirs.push(d);
    mkdirSync(path.join(d.dir, "bin"));
    const found = workspaceFoldersOnPath(d.dir, [path.join(d.dir, "bin"), "/usr/bin", path.join(d.dir, "not-yet"), d.dir, "rel"].join(":"));
    expect(found.sort()).toEqual(["", "bin", "not-yet"]);
    expect(workspaceFoldersOnPath(path.join(d.dir, "bin"), `${d.dir}:/usr/bin`)).toEqual([]);
  });

  it("writing a program there asks a person in mode all, by a tool or a command, and git stays the system's", async () => {
    const d = tempDir();
    dirs.push(d);
    const bin = path.join(d.dir, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "tool"), "#!/bin/sh\necho mine\n");
    chmodSync(path.join(bin, "tool"), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}`, GIT_CEILING_DIRECTORIES: path.dirname(d.dir) };
    const planted = `#!/bin/sh\ntouch ${JSON.stringify(path.join(d.dir, "ran"))}\n`;
    const wrote = await runCli(
      ["call", "write_file", "--args", JSON.stringify({ path: "bin/git", content: planted }), "--approval", "all"],
      {
        cwd: d.dir,
        env,
      },
    );
    expect(wrote.code).toBe(3);
    expect(wrote.stdout + wrote.stderr).toMatch(/bin\/git is in bin, which is on PATH/);
    const made = await runCli(
      ["call", "shell", `command=python3 -c "open('bin/git','w').write('x'); open('bin/tool','w').write('x')"`, "--approval", "all"],
      { cwd: d.dir, env },
    );
    expect(made.stdout).toMatch(/Read-only file system/);
    expect(existsSync(path.join(bin, "git"))).toBe(false);
    expect(readFileSync(path.join(bin, "tool"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    await runCli(["call", "git_status", "--approval", "all"], { cwd: d.dir, env });
    expect(existsSync(path.join(d.dir, "ran"))).toBe(false);
  }, 120_000);
});
