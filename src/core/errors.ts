/** Error codes every outcome uses; the model reads them, so they are stable. */
export const ERROR_CODES = [
  "UNKNOWN_TOOL",
  "INVALID_ARGS",
  "INVALID_PATH",
  "FILE_NOT_FOUND",
  "PERMISSION_DENIED",
  "TIMEOUT",
  "EXECUTION_ERROR",
  "REJECTED",
  "CANCELLED",
  "NETWORK_ERROR",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "STALE_FILE",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * A code an outcome may carry: one of {@link ERROR_CODES}, or a tool's own (spec 003's tools answer
 * `{ ok: false, error: { code: "QUOTA_EXCEEDED", ... } }`), kept as the tool gave it.
 */
export type ToolErrorCode = ErrorCode | (string & {});

/** Codes where the same call may succeed if simply tried again. */
const RECOVERABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set(["TIMEOUT", "NETWORK_ERROR", "RATE_LIMITED", "UNAVAILABLE"]);

// Marks ToolErrors across copies of tackle: a tool module imports the library while the command
// line runs its own bundled copy, and an npm tree can hold two versions. `instanceof` checks the mark.
const BRAND = Symbol.for("tackle.ToolError");

/**
 * An error a tool throws to give the model a precise code and message. Anything else thrown
 * becomes EXECUTION_ERROR (or a mapped filesystem code) in the runner.
 */
export class ToolError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass keeps the ordinary check, so `instanceof MyError` stays specific.
    if (this !== ToolError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  declare readonly [BRAND]: true;
  readonly code: ToolErrorCode;
  readonly recoverable: boolean;
  /** Milliseconds the caller should wait before retrying (from Retry-After, for example). */
  readonly retryAfterMs?: number;
  readonly details?: Record<string, unknown>;

  constructor(
    code: ToolErrorCode,
    message: string,
    options: { recoverable?: boolean; retryAfterMs?: number; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolError";
    this.code = code;
    this.recoverable = options.recoverable ?? RECOVERABLE_BY_DEFAULT.has(code as ErrorCode);
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.details !== undefined) this.details = options.details;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

const ERRNO_CODES: Record<string, ErrorCode> = {
  ENOENT: "FILE_NOT_FOUND",
  ENOTDIR: "FILE_NOT_FOUND",
  EACCES: "PERMISSION_DENIED",
  EPERM: "PERMISSION_DENIED",
  EROFS: "PERMISSION_DENIED",
  ETIMEDOUT: "TIMEOUT",
  ECONNREFUSED: "NETWORK_ERROR",
  ECONNRESET: "NETWORK_ERROR",
  ENOTFOUND: "NETWORK_ERROR",
  EAI_AGAIN: "NETWORK_ERROR",
};

/** Turns anything thrown into a ToolError, mapping Node's errno codes to ours. */
export function toToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  if (err instanceof Error) {
    const errno = (err as NodeJS.ErrnoException).code;
    // Its own entries only: a library's error may carry any code, "constructor" among them.
    const code = errno && Object.hasOwn(ERRNO_CODES, errno) ? ERRNO_CODES[errno] : undefined;
    if (code) {
      const path = (err as NodeJS.ErrnoException).path;
      return new ToolError(code, describeErrno(errno!, path, err.message), { cause: err });
    }
    if (err.name === "AbortError") return new ToolError("CANCELLED", "The call was cancelled.", { cause: err });
    return new ToolError("EXECUTION_ERROR", err.message || String(err), { cause: err });
  }
  return new ToolError("EXECUTION_ERROR", String(err));
}

function describeErrno(errno: string, path: string | undefined, fallback: string): string {
  const where = path ? ` ${path}` : "";
  switch (errno) {
    case "ENOENT":
      return `No such file or directory:${where}. Check the path, or list the directory to see what exists.`;
    case "ENOTDIR":
      return `A component of the path is not a directory:${where}.`;
    case "EACCES":
    case "EPERM":
      return `Permission denied:${where}.`;
    case "EROFS":
      return `Read-only file system:${where}.`;
    default:
      return fallback;
  }
}

/**
 * What a call stopped by its caller's signal throws: CANCELLED, as the runner's outcome says it,
 * rather than whatever the aborted work threw (fetch's DOMException, a child's exit). A tool's own
 * ToolError is its word and passes unchanged.
 */
export function cancelledIfAborted(err: unknown, signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted || err instanceof ToolError) return err;
  const own = err instanceof Error && err.name !== "AbortError" && err.message ? err.message : undefined;
  return new ToolError("CANCELLED", own ?? "The call was cancelled before it finished.", { cause: err });
}
