import { InvalidArgumentError } from "commander";
import { EXIT } from "./exit-codes.js";

/** Commander argument parser for a TCP port (0 picks a free one); a bad value is a usage error. */
export function portArg(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError("It must be a port number from 0 to 65535 (0 picks a free one).");
  return port;
}

/** A running server the command waits on. */
export interface RunningServer {
  close(): Promise<void>;
  closed: Promise<unknown>;
}

/**
 * Keeps the command alive until the server closes, closing it on SIGINT or SIGTERM; then makes
 * sure the process ends even if something (a stuck child's pipe) still holds the event loop.
 */
export async function serveUntilClosed(handle: RunningServer): Promise<void> {
  const stop = () => void handle.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await handle.closed;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  setTimeout(() => process.exit(process.exitCode ?? EXIT.ok), 2000).unref();
}

/** What a person reads when a server cannot start: a port in use names the way out. */
export function startFailure(err: unknown, portFlag: string, port: number | undefined): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === "EADDRINUSE") {
    const what = `port ${port ?? "?"} is already in use (another tackle serve, or another program)`;
    return `tackle: ${what}; pass ${portFlag} 0 to pick a free one, or stop the other.\n`;
  }
  return `tackle: ${e.message}\n`;
}
