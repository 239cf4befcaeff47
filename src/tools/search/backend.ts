import { ToolError } from "../../core/errors.js";
import { findRipgrep } from "./ripgrep.js";

/** Which engine glob and grep use: ripgrep when installed (`auto`), or one forced. */
export type SearchBackend = "auto" | "ripgrep" | "builtin";
export const SEARCH_BACKENDS: readonly SearchBackend[] = ["auto", "ripgrep", "builtin"];

/** Environment variable that picks the backend (`builtin`, `ripgrep`, `auto`), for tests and machines without rg. */
export const BACKEND_ENV = "TACKLE_GREP_BACKEND";

export type ChosenBackend = { kind: "ripgrep"; rg: string } | { kind: "builtin" };

/** The backend the environment asks for, if any. */
export function backendFromEnv(env: NodeJS.ProcessEnv = process.env): SearchBackend | undefined {
  return parse(env[BACKEND_ENV]);
}

function parse(value: string | undefined): SearchBackend | undefined {
  const v = value?.trim().toLowerCase();
  if (v === "rg") return "ripgrep";
  return SEARCH_BACKENDS.find((b) => b === v);
}

/**
 * Picks the engine for one call. An explicit choice wins over the environment, which wins over
 * `auto`. Forcing ripgrep where it is missing is an UNAVAILABLE error, not a silent fallback.
 */
export function chooseBackend(preferred: SearchBackend | undefined, env: NodeJS.ProcessEnv = process.env, rgPath?: string): ChosenBackend {
  const wanted = preferred ?? parse(env[BACKEND_ENV]) ?? "auto";
  if (wanted === "builtin") return { kind: "builtin" };
  const rg = rgPath ?? findRipgrep(env.PATH);
  if (rg) return { kind: "ripgrep", rg };
  if (wanted === "ripgrep") {
    throw new ToolError("UNAVAILABLE", "ripgrep (rg) is not installed or not on PATH; install it or use the built-in search backend.");
  }
  return { kind: "builtin" };
}
