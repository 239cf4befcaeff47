// Tool descriptions live in .txt files beside their code, and the dashboard in .html, .css and .js
// files; tsc does not copy them, so the build does.
import { cp, readdir, chmod } from "node:fs/promises";
import { join } from "node:path";

async function copyTxt(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const from = join(dir, entry.name);
    if (entry.isDirectory()) await copyTxt(from);
    else if (entry.name.endsWith(".txt") || from.startsWith(join("src", "serve", "dashboard") + "/")) {
      await cp(from, from.replace(/^src/, "dist"));
    }
  }
}
await copyTxt("src");
await chmod("dist/cli/main.js", 0o755);
await chmod("dist/cli/main.cjs", 0o755);
