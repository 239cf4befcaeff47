import { spawn } from "../../process/child-process.js";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import {
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { ToolError } from "../../core/errors.js";
import { describeIssues, formatIssues } from "../../core/schema.js";
import type { z } from "zod";
import { ownFolder, replaceOwnFile, tackleConfigDir } from "../../workspace/own-folders.js";

/** What is kept for one server: its registration with the authorization server, the tokens, the PKCE verifier of a sign-in under way. */
interface Stored {
  url: string;
  /** Where the sign-in's answer came back: a session needs it to refresh (the SDK refreshes only interactive clients). */
  redirect?: string;
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  verifier?: string;
  /** Which authorization server the sign-in under way went to: the answer must come from the same one. */
  discovery?: OAuthDiscoveryState;
}

/** The file a server's sign-in is kept in: per server name and address, in the user's config folder, 0600. */
export function loginFile(server: string, url: URL): string {
  const key = createHash("sha256").update(url.href).digest("hex").slice(0, 12);
  return path.join(tackleConfigDir(), "mcp-oauth", `${server.replace(/[^A-Za-z0-9._-]/g, "_")}-${key}.json`);
}

/** Whether someone signed into this server with `tackle login`. */
export function hasLogin(server: string, url: URL): boolean {
  return existsSync(loginFile(server, url));
}

/**
 * The MCP SDK's OAuth client, with what it learns kept in {@link loginFile}: tokens are sent with
 * every request and refreshed by the SDK when they expire. Without `onRedirect` (a running session)
 * a sign-in cannot happen here, and the error says to run `tackle login`.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #file: string;
  #stored: Stored;

  constructor(
    private readonly server: string,
    private readonly url: URL,
    private readonly options: {
      redirectUrl?: string;
      onRedirect?: (authorizationUrl: URL) => void | Promise<void>;
      /** The value the authorization page must send back with the code (a sign-in's own). */
      state?: string;
    } = {},
  ) {
    this.#file = loginFile(server, url);
    this.#stored = readStored(this.#file) ?? { url: url.href };
    if (options.redirectUrl) this.#stored.redirect = options.redirectUrl;
  }

  state(): string {
    return this.options.state ?? randomBytes(16).toString("hex");
  }

  get redirectUrl(): string | undefined {
    return this.options.redirectUrl ?? this.#stored.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "tackle",
      redirect_uris: this.redirectUrl ? [this.redirectUrl] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.#stored.client;
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.#save({ ...this.#stored, client });
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#stored.tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    const { verifier: _used, ...rest } = this.#stored;
    this.#save({ ...rest, tokens });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.options.onRedirect) {
      throw new ToolError(
        "UNAVAILABLE",
        `The MCP server "${this.server}" needs you to sign in (its tokens are missing or no longer accepted). Run: tackle login ${this.server}`,
      );
    }
    await this.options.onRedirect(authorizationUrl);
  }

  saveCodeVerifier(verifier: string): void {
    this.#save({ ...this.#stored, verifier });
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.#save({ ...this.#stored, discovery });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#stored.discovery;
  }

  codeVerifier(): string {
    if (!this.#stored.verifier) throw new Error("No sign-in is under way for this server.");
    return this.#stored.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const next = { ...this.#stored };
    if (scope === "all" || scope === "client") delete next.client;
    if (scope === "all" || scope === "tokens") delete next.tokens;
    if (scope === "all" || scope === "verifier") delete next.verifier;
    if (scope === "all" || scope === "discovery") delete next.discovery;
    this.#save(next);
  }

  #save(next: Stored): void {
    this.#stored = next;
    writeStored(this.#file, next);
  }
}

function readStored(file: string): Stored | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Stored;
  } catch {
    return undefined;
  }
}

/** Written whole through a temporary file, 0600, in a folder only the user can enter. */
function writeStored(file: string, stored: Stored): void {
  const dir = path.dirname(file);
  if (!ownFolder(dir, true)) {
    throw new Error(
      `${dir} is not a folder only you can enter, so no tokens are kept there; remove it or chmod 700 it, then sign in again.`,
    );
  }
  replaceOwnFile(file, `${JSON.stringify(stored, null, 2)}\n`);
}

/** Forgets a server's sign-in. Returns whether there was one. */
export function logout(server: string, url: URL): boolean {
  const file = loginFile(server, url);
  if (!existsSync(file)) return false;
  rmSync(file, { force: true });
  return true;
}

export interface LoginOptions {
  /** Shows the person the authorization page: $BROWSER, else xdg-open; the address is always printed too. */
  open?: (url: URL) => void | Promise<void>;
  /** How long to wait for the person to finish (default 5 minutes). */
  timeoutMs?: number;
  /** Where to say what is happening (default stderr). */
  say?: (line: string) => void;
}

/**
 * Signs into a remote MCP server with OAuth (the authorization code flow with PKCE, the client
 * registered dynamically): the authorization page opens in the browser, the answer comes back to
 * a one-time listener on 127.0.0.1, and the tokens are kept in {@link loginFile}.
 */
export async function login(server: string, url: URL, options: LoginOptions = {}): Promise<"signed-in"> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const timeoutMs = options.timeoutMs ?? 300_000;
  // A fresh registration: the redirect address (its port) is this sign-in's own.
  logout(server, url);
  let settle!: { resolve: (params: URLSearchParams) => void; reject: (err: Error) => void };
  const answered = new Promise<URLSearchParams>((resolve, reject) => (settle = { resolve, reject }));
  // Any process on the machine, or a page in the browser, can reach the listener: only an answer
  // carrying this sign-in's state is taken (another's code would sign tackle into someone else's account).
  const state = randomBytes(16).toString("hex");
  const listener = createServer((req, res) => {
    const here = new URL(req.url ?? "/", "http://127.0.0.1");
    if (here.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    if (here.searchParams.get("state") !== state) {
      res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end("This address does not belong to the sign-in under way.");
      return;
    }
    const failed = here.searchParams.get("error");
    res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
    res.end(
      failed
        ? `Sign-in failed: ${failed}. You can close this page.`
        : "Signed in to the MCP server. You can close this page and go back to tackle.",
    );
    settle.resolve(here.searchParams);
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as { port: number }).port;
  const timer = setTimeout(() => settle.reject(new Error(`no answer from the browser within ${timeoutMs / 1000} s`)), timeoutMs);
  try {
    let opened = false;
    const provider = new StoredOAuthProvider(server, url, {
      redirectUrl: `http://127.0.0.1:${port}/callback`,
      state,
      onRedirect: async (authorizationUrl) => {
        // The server's metadata names this address: a file: or javascript: one handed to the
        // browser's opener could run something (as CVE-2025-6514 did through mcp-remote).
        if (authorizationUrl.protocol !== "https:" && authorizationUrl.protocol !== "http:") {
          throw new Error(`the server's authorization address is not http or https (${authorizationUrl.protocol}); nothing was opened`);
        }
        opened = true;
        say(`Open this address to sign in to "${server}":\n  ${authorizationUrl.href}`);
        await (options.open ?? openInBrowser)(authorizationUrl);
      },
    });
    const first = await auth(provider, { serverUrl: url }).catch((err: unknown) => {
      throw metadataRefusal(err);
    });
    if (first === "AUTHORIZED" && !opened) return "signed-in";
    const params = await answered;
    const error = params.get("error");
    if (error)
      throw new Error(
        `the authorization server refused: ${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}`,
      );
    const code = params.get("code");
    if (!code) throw new Error("the browser came back without an authorization code");
    const done = await auth(provider, { serverUrl: url, authorizationCode: code });
    if (done !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens");
    return "signed-in";
  } finally {
    clearTimeout(timer);
    listener.close();
    listener.closeAllConnections();
  }
}

/** $BROWSER (as many tools honour it), else xdg-open; failing that, the printed address is enough. */
function openInBrowser(url: URL): void {
  const browser = process.env["BROWSER"];
  const [command, ...args] = browser ? [browser, url.href] : ["xdg-open", url.href];
  try {
    const child = spawn(command!, args, { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // the address was printed
  }
}

/**
 * The SDK refuses a server's sign-in metadata it cannot accept (an authorization address with a
 * javascript: scheme) by throwing its schema's issues, printed as JSON; said in a sentence instead.
 */
function metadataRefusal(err: unknown): unknown {
  const issues = (err as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return err;
  return new Error(`the server's sign-in metadata is not valid: ${formatIssues(describeIssues(issues as z.core.$ZodIssue[]))}`);
}
