import { assertListenOptions } from "../../net/request-guard.js";

// The HTTP options and their check, apart from server-http.ts: a stdio server loads none of the HTTP serving code.

export interface HttpServeOptions {
  port: number;
  /** Address to bind; default 127.0.0.1. Anything but loopback requires `token`. */
  host?: string;
  /** Bearer token every request must carry in `Authorization: Bearer <token>`. */
  token?: string;
  /** More host names clients may use in the Host and Origin headers (a reverse proxy's name). */
  allowedHosts?: string[];
  /** A 2025-era session with no request and no open stream for this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
}

/** Checks HTTP options before anything is bound (see net/request-guard.ts). */
export function assertHttpOptions(options: HttpServeOptions): void {
  const listen = { host: options.host ?? "127.0.0.1", port: options.port, token: options.token };
  assertListenOptions(listen, { portFlag: "--http", what: "MCP", tokenEnv: "TACKLE_MCP_TOKEN" });
}
