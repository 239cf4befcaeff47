import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess } from "../support/run-process.js";

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
