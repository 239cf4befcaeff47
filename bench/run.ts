// Runs every bench/*.bench.ts in its own process, one after another, so their figures do not disturb each other.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
// The servers the benchmarks start keep desks, audit trails and tokens in tackle's state folder:
// one of the run's own, so the workspaces they made and removed leave nothing in the user's.
const state = mkdtempSync(path.join(os.tmpdir(), "tackle-bench-state-"));
let failed = 0;
try {
  for (const file of files) {
    process.stdout.write(`\n== ${file} ==\n`);
    const result = spawnSync(process.execPath, ["--import", "tsx", path.join(dir, file)], {
      stdio: "inherit",
      env: { ...process.env, XDG_STATE_HOME: state },
    });
    if (result.status !== 0) failed++;
  }
} finally {
  rmSync(state, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
