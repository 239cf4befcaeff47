import { constants } from "node:fs";

/**
 * Flags for opening an already resolved (real) path for reading: if a symlink was swapped in
 * at its last component since it was resolved, the open fails (ELOOP) instead of following it
 * out of the workspace.
 */
export const READ_NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;
