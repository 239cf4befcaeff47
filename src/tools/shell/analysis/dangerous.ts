import path from "node:path";
import type { SimpleCommand } from "./command-analysis.js";
import { expandTilde } from "./command-analysis.js";
import { hasOption, splitOptions } from "./flags.js";
import type { Word } from "./words.js";
import { CRITICAL_DIRS, HARMLESS_DEVICES } from "../rules/critical-paths.js";

/** Whether a path names the root, a top-level system folder, or the home folder (or all of their contents). */
function isCritical(w: Word, home: string): boolean {
  if (w.dynamic) {
    // `rm -rf "$DIR/"` deletes / when DIR is empty.
    return w.staticPrefix === "" && /^"?\$\{?[A-Za-z_][A-Za-z0-9_]*\}?"?\/?\*?"?$/.test(w.raw) && /\/\*?"?$/.test(w.raw);
  }
  let t = expandTilde(w.text, home);
  if (t === "~" || t.startsWith("~/")) return true;
  t = t.replace(/\/\*$/, "/").replace(/\/+$/, "") || "/";
  if (!t.startsWith("/")) return false;
  const norm = path.posix.normalize(t);
  return CRITICAL_DIRS.has(norm) || norm === home.replace(/\/+$/, "") || norm === path.posix.dirname(home);
}

/**
 * Spec 002's always-denied commands, judged on the parsed command rather than its text:
 * `rm -rf /` (and `~`, system folders, `$EMPTY/`), `dd of=/dev/sda`, `mkfs`, fork bombs,
 * recursive permission changes of `/`, power-off, killing every process.
 * Returns the reason, or undefined.
 */
export function dangerousReason(cmd: SimpleCommand, home: string): string | undefined {
  const { options, operands } = splitOptions(cmd.args);
  const name = cmd.name;
  switch (name) {
    case "rm": {
      if (options.includes("--no-preserve-root")) return "rm --no-preserve-root can delete the whole file system";
      if (hasOption(options, "rR", ["recursive"]) && operands.some((o) => isCritical(o, home))) {
        return `"${cmd.text}" would delete the file system root, a system folder or the home folder`;
      }
      return undefined;
    }
    case "find":
      if (cmd.args.some((a) => a.text === "-delete") && cmd.args.some((a) => !a.text.startsWith("-") && isCritical(a, home))) {
        return `"${cmd.text}" would delete a system folder or the home folder`;
      }
      return undefined;
    case "mv":
      if (operands.slice(0, -1).some((o) => isCritical(o, home))) return `"${cmd.text}" would move a system folder or the home folder away`;
      return undefined;
    case "chmod":
    case "chown":
    case "chgrp":
      if (operands.some((o) => !o.dynamic && path.posix.normalize(expandTilde(o.text, home)) === "/"))
        return `"${cmd.text}" changes the permissions of the whole file system`;
      if (hasOption(options, "R", ["recursive"]) && operands.slice(1).some((o) => isCritical(o, home))) {
        return `"${cmd.text}" recursively changes permissions of a system folder or the home folder`;
      }
      return undefined;
    case "dd": {
      // The list of commands never run names `dd if=`: a raw copy that can read a disk or write past any file check.
      if (cmd.args.some((a) => a.text.startsWith("if="))) return `"${cmd.text}" copies raw data with dd if=, which is never run`;
      const of = cmd.args.find((a) => a.text.startsWith("of="));
      if (of && of.text.slice(3).startsWith("/dev/") && !HARMLESS_DEVICES.test(of.text.slice(3)))
        return `"${cmd.text}" writes straight to a device`;
      return undefined;
    }
    case "mke2fs":
    case "mkswap":
    case "mkdosfs":
    case "newfs":
      return `${name} formats a disk`;
    case "wipefs":
    case "fdisk":
    case "sfdisk":
    case "cfdisk":
    case "parted":
    case "sgdisk":
    case "gdisk":
    case "blkdiscard":
    case "shred":
    case "badblocks":
      if (cmd.args.some((a) => a.text.startsWith("/dev/") && !HARMLESS_DEVICES.test(a.text))) return `"${cmd.text}" rewrites a disk device`;
      return undefined;
    case "shutdown":
    case "reboot":
    case "halt":
    case "poweroff":
      return `${name} stops the machine`;
    case "init":
    case "telinit":
      if (operands.some((o) => o.text === "0" || o.text === "6")) return `${name} ${operands[0]!.text} stops the machine`;
      return undefined;
    case "systemctl":
      if (operands.some((o) => ["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"].includes(o.text)))
        return `"${cmd.text}" stops the machine`;
      return undefined;
    case "kill":
      if (cmd.args.some((a) => a.text === "-1") && cmd.args.filter((a) => a.text.startsWith("-")).length >= 1) {
        // `kill -1 PID` sends HUP; `kill -9 -1` / `kill -- -1` kill every process.
        const idx = cmd.args.findIndex((a) => a.text === "-1");
        const signalFirst = idx > 0 || cmd.args.some((a) => a.text === "--");
        if (signalFirst || cmd.args.length === 1) return `"${cmd.text}" kills every process`;
      }
      return undefined;
    default:
      if (/^mkfs(\..+)?$/.test(name)) return `${name} formats a disk`;
      return undefined;
  }
}
