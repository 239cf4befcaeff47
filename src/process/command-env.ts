import { dropRelativePathEntries } from "./safe-path.js";
/**
 * Settings that keep commands from waiting for a person: no pagers, no terminal prompts, no
 * editors, no colour codes. Every command tackle runs gets them.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "cat",
  LESS: "-FRX",
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  // An editor that exits at once: `git commit` without -m fails fast instead of waiting.
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  TERM: "dumb",
  CI: "1",
  NO_COLOR: "1",
  DEBIAN_FRONTEND: "noninteractive",
  PIP_NO_INPUT: "1",
  npm_config_yes: "true",
  HOMEBREW_NO_AUTO_UPDATE: "1",
};

/**
 * Variables that make bash read a startup file, or that undo NO_COLOR; and tackle's own secrets:
 * with the servers' tokens or the shared store's address (and its password), a command could
 * answer its own approval requests.
 */
const DROPPED = [
  "BASH_ENV",
  "ENV",
  "PROMPT_COMMAND",
  "FORCE_COLOR",
  "CLICOLOR_FORCE",
  "TACKLE_STORE",
  "TACKLE_SERVE_TOKEN",
  "TACKLE_MCP_TOKEN",
];

/**
 * Git settings a repository's own config could use to run a program on a read-only command
 * (`core.fsmonitor` runs one on `git status`); switched off through git's environment config,
 * which outranks the repository's.
 */
const GIT_OVERRIDES: ReadonlyArray<[string, string]> = [
  ["core.fsmonitor", "false"],
  // A bare repository written file by file under a plain folder name is never taken up by itself.
  ["safe.bareRepository", "explicit"],
];

/** The environment for a command: tackle's own, made non-interactive, plus `extra`. */
export function commandEnv(extra: Readonly<Record<string, string>> = {}, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ...NON_INTERACTIVE_ENV, ...extra };
  for (const key of DROPPED) if (!(key in extra)) delete env[key];
  dropRelativePathEntries(env);
  for (const key of Object.keys(env)) if (key.startsWith("BASH_FUNC_")) delete env[key];
  let count = Number(env.GIT_CONFIG_COUNT) || 0;
  for (const [key, value] of GIT_OVERRIDES) {
    env[`GIT_CONFIG_KEY_${count}`] = key;
    env[`GIT_CONFIG_VALUE_${count}`] = value;
    count++;
  }
  env.GIT_CONFIG_COUNT = String(count);
  return env;
}
