import { Option } from "commander";
import { loadConfig, type LoadedConfig } from "../config/config.js";
import { APPROVAL_MODES } from "../runtime/policy.js";
import { TOOLSET_NAMES } from "../tools/toolsets.js";

/** Options every command that opens a session shares. */
export const workspaceOption = () =>
  new Option("-w, --workspace <dir>", "workspace root (default: from config, else the current directory)");
export const configOption = () => new Option("-c, --config <file>", "configuration file (default: tackle.config.json or config.json)");
export const toolsetOption = () => new Option("--toolset <name>", "tool list to use").choices(TOOLSET_NAMES as string[]);
export const approvalOption = () =>
  new Option("--approval <mode>", "what is approved without asking: ask (nothing; also called none), safe (reads) or all").choices(
    APPROVAL_MODES as string[],
  );

/** The parsed shared options. */
export interface SessionFlags {
  workspace?: string;
  config?: string;
  toolset?: string;
  approval?: string;
}

/** The configuration `--workspace` and `--config` point at, for commands that open no session. */
export function configOf(flags: SessionFlags): LoadedConfig {
  return loadConfig({ ...(flags.workspace ? { workspace: flags.workspace } : {}), ...(flags.config ? { file: flags.config } : {}) });
}

/** Where the shared store is (approvals waiting for a person, their answers, "always" rules, events, audit). */
export const storeOption = () =>
  new Option("--store <address>", "shared store: file (default), file:/folder, or postgres://user:password@host/db").env("TACKLE_STORE");
