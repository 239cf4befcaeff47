// `npx tackle` inside the clone: npm looks for the command in node_modules/.bin, where a package's
// own bin is never put, and otherwise installs the clone into its cache, rebuilding it (about half
// a minute) every time. A link there, made once after the build, lets npx run it at once.
import { lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";

const root = process.cwd();
const bins = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).bin ?? {};
const dir = path.join(root, "node_modules", ".bin");
mkdirSync(dir, { recursive: true });
for (const [name, target] of Object.entries(bins)) {
  const link = path.join(dir, name);
  const wanted = path.relative(dir, path.join(root, target));
  try {
    if (lstatSync(link).isSymbolicLink()) {
      const now = readlinkSync(link);
      // An earlier build's link to another file of this clone (the bin was dist/cli/main.js) moves on.
      if (now === wanted || !path.resolve(dir, now).startsWith(path.join(root, "dist") + path.sep)) continue;
      rmSync(link);
    } else continue; // not a link: not ours to replace
  } catch {
    // not there: made below
  }
  symlinkSync(wanted, link);
}
