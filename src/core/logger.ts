/** Where tackle's own diagnostics go. Never stdout: that may be an MCP stdio channel. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

const LEVELS = ["debug", "info", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

/** A logger writing one line per message to stderr, at or above `level`. */
export function createLogger(level: Level | "silent" = "warn"): Logger {
  const min = level === "silent" ? LEVELS.length : LEVELS.indexOf(level);
  const write = (lvl: Level) => (message: string, data?: Record<string, unknown>) => {
    if (LEVELS.indexOf(lvl) < min) return;
    process.stderr.write(`[tackle ${lvl}] ${message}${data ? " " + JSON.stringify(data) : ""}\n`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

export const silentLogger: Logger = createLogger("silent");
