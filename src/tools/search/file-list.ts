import { ToolError } from "../../core/errors.js";
import type { ChosenBackend } from "./backend.js";
import { COMMON_RG_FLAGS, runRipgrep } from "./ripgrep.js";
import type { SearchRoot } from "./search-root.js";
import { walkFiles } from "./walk.js";

/**
 * Every file under a directory search root that the ignore rules keep, as paths relative to
 * `root.root` ("/"-separated), in no particular order. Both backends give the same list.
 */
export async function listFiles(root: SearchRoot, backend: ChosenBackend, signal: AbortSignal): Promise<string[]> {
  const files: string[] = [];
  await eachFile(root, backend, signal, (path) => files.push(path));
  return files;
}

/** The same files as {@link listFiles}, each handed to `onFile` as soon as it is known (while the built-in walk goes on). */
export async function eachFile(
  root: SearchRoot,
  backend: ChosenBackend,
  signal: AbortSignal,
  onFile: (path: string) => void,
): Promise<void> {
  if (backend.kind === "builtin") {
    const prefix = root.root.endsWith("/") ? root.root : `${root.root}/`;
    await walkFiles(root.absolute, { signal, onFile: (abs) => onFile(abs.slice(prefix.length)) });
    return;
  }
  const chunks: Buffer[] = [];
  const run = runRipgrep(backend.rg, ["--files", "--null", ...COMMON_RG_FLAGS, "--", root.relative], {
    cwd: root.root,
    signal,
    onStdout: (chunk) => chunks.push(chunk),
  });
  const { code, stderr } = await run.done;
  const out = Buffer.concat(chunks).toString("utf8");
  // Exit 1 means no files; 2 with output means some entries could not be read, which the
  // built-in walker skips silently too.
  if (code !== 0 && code !== 1 && out.length === 0) {
    throw new ToolError("EXECUTION_ERROR", `Listing files failed: ${stderr.trim() || `ripgrep exited with ${code}`}`);
  }
  const files = out.split("\0");
  files.pop();
  for (const f of files) onFile(f.startsWith("./") ? f.slice(2) : f);
}
