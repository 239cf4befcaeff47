import type * as ChildProcessModule from "node:child_process";
import { promisify } from "node:util";
import { lazyRequire } from "./lazy-require.js";

// node:child_process takes about 10 ms to load (it brings net, dgram and their internals): loaded
// by the first process tackle starts, not by every run that only lists tools or reads files.
const childProcess = lazyRequire<typeof ChildProcessModule>("node:child_process");

export const spawn = ((...args: Parameters<typeof ChildProcessModule.spawn>) =>
  childProcess().spawn(...args)) as typeof ChildProcessModule.spawn;
export const spawnSync = ((...args: Parameters<typeof ChildProcessModule.spawnSync>) =>
  childProcess().spawnSync(...args)) as typeof ChildProcessModule.spawnSync;
export const execFile = ((...args: Parameters<typeof ChildProcessModule.execFile>) =>
  childProcess().execFile(...args)) as typeof ChildProcessModule.execFile;
// promisify(execFile) resolves to { stdout, stderr } through the real one's custom form.
Object.defineProperty(execFile, promisify.custom, {
  get: () => (childProcess().execFile as unknown as Record<symbol, unknown>)[promisify.custom],
});
