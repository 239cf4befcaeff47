/** The command line's exit codes: a contract that scripts and tests outside the project rely on. */
export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  rejected: 3,
  /** Stopped with Ctrl-C, as shells report SIGINT (128 + 2). */
  interrupted: 130,
} as const;
