import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess } from "../support/run-process.js";
import { oneLine, terminalSafe } from "../../src/core/visible.js";
import { everyCharacter } from "../support/every-character.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const hasEmacs = spawnSync("emacs", ["--version"], { stdio: "ignore" }).status === 0;

// The ERT suite starts real `tackle serve` processes from dist/ (npm test builds first).
describe.skipIf(!hasEmacs)("the Emacs package (emacs/tackle.el)", () => {
  it("byte-compiles without a warning", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "tackle-elc-"));
    try {
      const run = await runProcess(
        "emacs",
        [
          "--batch",
          "-L",
          "emacs",
          "--eval",
          `(progn (require (quote bytecomp)) (let ((byte-compile-dest-file-function (lambda (_) ` +
            `${JSON.stringify(path.join(out, "tackle.elc"))}))) (unless (byte-compile-file "emacs/tackle.el") (kill-emacs 1))))`,
        ],
        { cwd: ROOT, timeoutMs: 120_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/Warning|Error/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);

  it("loads with the README's set-up lines, as written", async () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const setup = /```elisp\n([\s\S]*?)```/.exec(readme)![1]!.replace("/path/to/tackle/emacs", path.join(ROOT, "emacs"));
    const run = await runProcess("emacs", ["--batch", "--eval", `(progn ${setup} (princ (if (featurep 'tackle) "loaded" "missing")))`], {
      timeoutMs: 120_000,
    });
    expect(run.stdout).toBe("loaded");
  }, 180_000);

  it("shows every character as the terminal does, control and format characters, blank runs and all", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tackle-visible-"));
    try {
      const input = path.join(dir, "in.txt");
      writeFileSync(input, everyCharacter());
      const render = (oneLineToo: boolean, out: string) =>
        `(let ((coding-system-for-read 'utf-8-unix) (coding-system-for-write 'utf-8-unix)) ` +
        `(write-region (tackle--visible (with-temp-buffer (insert-file-contents ${JSON.stringify(input)}) (buffer-string)) ${oneLineToo ? "t" : "nil"}) ` +
        `nil ${JSON.stringify(path.join(dir, out))}))`;
      const run = await runProcess(
        "emacs",
        ["--batch", "-L", "emacs", "-l", "emacs/tackle.el", "--eval", `(progn ${render(false, "safe.txt")} ${render(true, "line.txt")})`],
        { cwd: ROOT, timeoutMs: 300_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      // Where they differ, not the whole text: a difference is a few characters in a text of 180,000.
      const around = (a: string, b: string) => {
        let i = 0;
        while (i < a.length && a[i] === b[i]) i++;
        return i === a.length && i === b.length
          ? "the same"
          : `${JSON.stringify(a.slice(i, i + 40))} where ${JSON.stringify(b.slice(i, i + 40))}`;
      };
      expect(around(readFileSync(path.join(dir, "safe.txt"), "utf8"), terminalSafe(everyCharacter()))).toBe("the same");
      expect(around(readFileSync(path.join(dir, "line.txt"), "utf8"), oneLine(everyCharacter()))).toBe("the same");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 360_000);

  it("passes its ERT tests against a real tackle serve", async () => {
    const run = await runProcess(
      "emacs",
      ["--batch", "-L", "emacs", "-l", "emacs/test/tackle-test.el", "-f", "ert-run-tests-batch-and-exit"],
      {
        cwd: ROOT,
        timeoutMs: 900_000,
      },
    );
    const summary = /^Ran \d+ tests?, .*$/m.exec(run.stderr)?.[0];
    expect(run.status, run.stderr.split("\n").slice(-40).join("\n")).toBe(0);
    expect(summary).toMatch(/Ran \d+ tests, \d+ results as expected, 0 unexpected/);
  }, 960_000);
});
