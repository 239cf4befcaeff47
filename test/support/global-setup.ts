import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * The suite's own folders, removed after it: a temporary folder (TMPDIR) for everything the tests
 * and the programs they start put there (tsx's cache, language servers' folders, whatever a killed
 * process leaves), a state folder (XDG_STATE_HOME) for tackle's desks and server tokens, a config
 * folder (XDG_CONFIG_HOME) for MCP servers' sign-ins, and a cache folder (XDG_CACHE_HOME) for the
 * command line's compiled code, the sandbox's /etc and its remembered probes, so the tests neither
 * read a person's state nor leave theirs behind.
 */
export default function setup(): () => void {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "tackle-test-tmp-"));
  // Others may pass through, as through /tmp (the tests that run as nobody need to); the state
  // folder and every test's own folder stay private.
  chmodSync(tmp, 0o755);
  const state = mkdtempSync(path.join(tmp, "state-"));
  process.env.TMPDIR = tmp;
  process.env.XDG_STATE_HOME = state;
  process.env.XDG_CONFIG_HOME = mkdtempSync(path.join(tmp, "config-"));
  process.env.XDG_CACHE_HOME = mkdtempSync(path.join(tmp, "cache-"));
  return () => rmSync(tmp, { recursive: true, force: true });
}
