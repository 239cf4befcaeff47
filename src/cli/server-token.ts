import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ownFolder, tackleStateDir } from "../workspace/own-folders.js";

/*
 * `tackle serve` and `tackle mcp --http` listen on 127.0.0.1, which every user of the machine can
 * reach: without a token, any of them could read and write the workspace through the tools and
 * answer the approvals. So each requires a bearer token unless told `--no-token`: the one given,
 * or a new one, printed for the person and kept in a file only this user can read, where the
 * Emacs package (and scripts) find it by the server's address.
 */

/**
 * The token a server requires: `--token`/the environment's, a new one, or none with `--no-token`
 * (false). One given on the command line is hidden there at once (see {@link hideGivenToken}).
 */
export function serverToken(given: string | boolean | undefined, variable: string): string | undefined {
  if (given === false) return undefined;
  if (typeof given === "string" && given !== "") {
    hideGivenToken(variable);
    return given;
  }
  return randomBytes(24).toString("base64url");
}

/**
 * Every user of the machine can read a process's arguments (`ps`, /proc/PID/cmdline), but only its
 * owner its environment. A token after `--token` is overwritten with *** in the arguments' memory
 * (which is what Linux shows as the process's command line) as soon as tackle runs, and the person
 * told to pass it as `variable` instead: it could be read while tackle started.
 */
function hideGivenToken(variable: string): void {
  const shown = process.argv.map((arg, i) =>
    process.argv[i - 1] === "--token" ? "***" : arg.startsWith("--token=") ? "--token=***" : arg,
  );
  if (shown.every((arg, i) => arg === process.argv[i])) return;
  process.title = shown.join(" ");
  process.stderr.write(
    `tackle: a token on the command line can be read by every user of this machine (ps); pass it as ${variable}=... instead\n`,
  );
}

/** Where the token of the server at `url` is kept: `$XDG_STATE_HOME/tackle/servers/HOST-PORT.token`. */
export function tokenFile(url: string): string {
  const u = new URL(url);
  return path.join(tackleStateDir(), "servers", `${u.hostname.replace(/[^A-Za-z0-9.-]/g, "_")}-${u.port}.token`);
}

/**
 * Writes the token where this user alone can read it, removed when the process exits. Returns
 * the file, or undefined when the state folder is not private (the token is then only printed).
 */
export function publishToken(url: string, token: string): string | undefined {
  const file = tokenFile(url);
  try {
    if (!ownFolder(path.dirname(file), true)) return undefined;
    rmSync(file, { force: true });
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
    process.once("exit", () => rmSync(file, { force: true }));
    return file;
  } catch {
    return undefined;
  }
}

/** The lines a server prints about its token: how to send it, and where it is kept. */
export function tokenNotice(url: string, token: string | undefined, what: "dashboard" | "mcp"): string {
  if (!token) return `tackle: no token (--no-token): every local user can reach ${url}\n`;
  const file = publishToken(url, token);
  const kept = file ? ` (kept in ${file})` : "";
  const open = what === "dashboard" ? `open ${url}/?token=${token} in a browser; ` : "";
  return `tackle: ${open}requests need Authorization: Bearer ${token}${kept}\n`;
}
