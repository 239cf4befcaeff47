import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { findExecutable } from "../process/find-executable.js";
import { Workspace } from "../workspace/workspace.js";
import { supportDir } from "./rootfs.js";
import { removeTree } from "./remove-tree.js";
import { capture } from "./capture.js";

/*
 * A copy-on-write view of the workspace for code that must not change it unasked (run_code).
 *
 * bubblewrap before 0.9 cannot mount an overlay, so a private mount namespace does it first:
 * `unshare --user --map-root-user --mount` runs a fixed bash script that binds the workspace to
 * a plain path, mounts the kernel's overlayfs (the workspace below, an empty folder of ours
 * above) and runs bwrap on the merged view. Every write lands in the upper folder; the workspace
 * itself is never written. After bwrap ends, the same script lists each changed folder as the
 * code left it, because a folder the code emptied and made again hides the old entries by an
 * extended attribute Node cannot read. Nothing of the code runs after it has ended: bwrap's pid
 * namespace takes every process with it.
 */

/** The folders of one copy-on-write run. */
export interface Overlay {
  /** Holds everything below; removed by {@link Overlay.dispose}. */
  readonly dir: string;
  /** What the code wrote, created and deleted (whiteouts), as overlayfs keeps it. */
  readonly upper: string;
  /** The merged view, mounted at the workspace's path inside the sandbox. */
  readonly merged: string;
  /** Where the script writes the listing of changed folders. */
  readonly listing: string;
  /** Removes every folder of the run, whatever modes the code left on them. */
  dispose(): void;
}

/** How the overlay's mount namespace is entered, for {@link overlayCommand}. */
interface Entry {
  unshare: string;
  bash: string;
  mount: string;
}

/**
 * Binds the workspace, mounts the overlay, runs the rest of its arguments (bwrap), then lists the
 * entries of every folder of the upper layer that the workspace also has, as the merged view
 * shows them: `D<folder>\0` followed by `E<name>\0` per entry. Exits with bwrap's status.
 * Arguments: mount, workspace, lower, upper, work, merged, listing, then the command.
 */
const SCRIPT = `set -u
mnt=$1 ws=$2 lower=$3 upper=$4 work=$5 merged=$6 listing=$7
shift 7
"$mnt" --bind -- "$ws" "$lower" || exit 125
"$mnt" -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work,userxattr" -- "$merged" || exit 125
"$@"
status=$?
shopt -s nullglob dotglob
walk() {
  local d=$1 e
  [ -d "$lower$d" ] && [ ! -L "$lower$d" ] || return 0
  printf 'D%s\\0' "$d"
  for e in "$merged$d"/*; do printf 'E%s\\0' "\${e##*/}"; done
  for e in "$upper$d"/*; do
    if [ -d "$e" ] && [ ! -L "$e" ]; then walk "$d/\${e##*/}"; fi
  done
}
walk "" > "$listing"
exit $status
`;

let entry: Promise<Entry | string> | undefined;

/**
 * Whether copy-on-write runs work here: the programs exist and a trial overlay mounts. Tried
 * once per process. Resolves to the reason when they do not.
 */
export function overlaySupport(): Promise<true | string> {
  entry ??= probe();
  return entry.then((e) => (typeof e === "string" ? e : true));
}

async function probe(): Promise<Entry | string> {
  const dirs = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"];
  const unshare = findExecutable("unshare", { dirs });
  const bash = findExecutable("bash", { dirs });
  const mount = findExecutable("mount", { dirs });
  if (!unshare || !bash || !mount) return "unshare, bash and mount (util-linux) are needed to make a copy-on-write view of the workspace";
  const found: Entry = { unshare, bash, mount };
  let trial: Overlay | undefined;
  try {
    trial = await createOverlay();
    const ws = path.join(trial.dir, "trial");
    await mkdir(ws);
    // The trial writes into the merged view, and the write must land in the upper layer only.
    const argv = overlayCommand(found, ws, trial, ["/bin/sh", "-c", 'echo x > "$1/written"', "sh", trial.merged]);
    const result = await capture(argv[0]!, argv.slice(1));
    if (result.code !== 0) return `the kernel refused an overlay mount in a user namespace (${result.err.trim() || `exit ${result.code}`})`;
    const listing = await readFile(trial.listing, "utf8");
    if (!listing.startsWith("D\0") || !existsSync(path.join(trial.upper, "written")) || existsSync(path.join(ws, "written")))
      return "the copy-on-write view did not keep a write apart from the workspace";
    return found;
  } catch (err) {
    return `the copy-on-write view could not be set up: ${(err as Error).message}`;
  } finally {
    trial?.dispose();
  }
}

/** Makes the folders of one run inside the sandbox's private support folder (0700, removed at exit). */
export async function createOverlay(): Promise<Overlay> {
  const base = path.join(await supportDir(), "overlays");
  await mkdir(base, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(base, "run-"));
  const parts = ["lower", "upper", "work", "merged"] as const;
  await Promise.all(parts.map((p) => mkdir(path.join(dir, p), { mode: 0o700 })));
  return {
    dir,
    upper: path.join(dir, "upper"),
    merged: path.join(dir, "merged"),
    listing: path.join(dir, "listing"),
    dispose: () => removeTree(dir),
  };
}

/**
 * The argv that runs `command` (bwrap and its arguments) over a copy-on-write view of
 * `workspace`: bwrap must bind {@link Overlay.merged} at the workspace's path.
 */
export async function overlayArgv(workspace: string, overlay: Overlay, command: readonly string[]): Promise<string[]> {
  const found = await (entry ??= probe());
  if (typeof found === "string") throw new Error(found);
  if (Workspace.isInside(workspace, overlay.dir)) {
    throw new Error(`the sandbox's own folder ${overlay.dir} is inside the workspace, so it cannot be layered over it`);
  }
  return overlayCommand(found, workspace, overlay, command);
}

function overlayCommand(found: Entry, workspace: string, overlay: Overlay, command: readonly string[]): string[] {
  const at = (p: string) => path.join(overlay.dir, p);
  return [
    found.unshare,
    "--user",
    "--map-root-user",
    "--mount",
    "--",
    found.bash,
    "--noprofile",
    "--norc",
    "-c",
    SCRIPT,
    "tackle-overlay",
    found.mount,
    workspace,
    at("lower"),
    at("upper"),
    at("work"),
    at("merged"),
    overlay.listing,
    ...command,
  ];
}

/**
 * The listing the script wrote: for each folder (workspace-relative, "" for the root) the names
 * it held when the code ended. Folders the code created are not in it.
 */
export async function readListing(overlay: Overlay): Promise<Map<string, Set<string>>> {
  const folders = new Map<string, Set<string>>();
  let text: string;
  try {
    text = await readFile(overlay.listing, "utf8");
  } catch {
    return folders;
  }
  let current: Set<string> | undefined;
  for (const item of text.split("\0")) {
    if (item.startsWith("D")) folders.set(item.slice(1).replace(/^\//, ""), (current = new Set()));
    else if (item.startsWith("E") && current) current.add(item.slice(1));
  }
  return folders;
}
