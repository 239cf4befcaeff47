import { google, loadGoogle } from "./google-lib.js";
import { ToolError } from "../../core/errors.js";
import type { GoogleServiceConfig } from "./config.js";
import { googleApiError, httpStatus } from "./google-error.js";
import { startLoopbackFlow, type LoopbackFlow } from "./loopback-flow.js";
import { openSystemBrowser, type OpenBrowser } from "./open-browser.js";
import type { Credentials, OAuth2Client } from "./oauth-client.js";
import type { TokenStore } from "./token-store.js";

interface PendingSignIn {
  flow: LoopbackFlow;
  ready: Promise<void>;
  opened: boolean;
}

/** How sign-in reaches a person; tests replace each part. */
export interface SignInOptions {
  /** Opens the consent page; default the platform's browser opener. */
  openBrowser?: OpenBrowser;
  /** Whether a person is at a terminal to copy a printed URL; default stdin and stderr are TTYs. */
  interactive?: () => boolean;
  /** Where the sign-in URL is printed when no browser opens; default stderr. */
  notify?: (text: string) => void;
}

export interface GoogleAccountOptions extends SignInOptions {
  /** "Gmail" or "Google Calendar": used in messages. */
  service: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  store: TokenStore;
  config: GoogleServiceConfig;
  /** A tool of this account to name in the sign-in message ("gmail_search"). */
  firstTool?: string;
}

/**
 * One Google sign-in (Gmail and Calendar each have their own, with their own token folder):
 * the OAuth2 client the API libraries call through, cached tokens, refresh, and the loopback
 * sign-in when there are no tokens. Every API call goes through {@link call}.
 */
export class GoogleAccount {
  #client?: OAuth2Client;
  readonly service: string;
  readonly #options: GoogleAccountOptions;
  readonly #openBrowser: OpenBrowser;
  readonly #interactive: () => boolean;
  readonly #notify: (text: string) => void;
  #pending?: PendingSignIn;

  constructor(options: GoogleAccountOptions) {
    this.#options = options;
    this.service = options.service;
    this.#openBrowser = options.openBrowser ?? openSystemBrowser;
    this.#interactive = options.interactive ?? (() => Boolean(process.stdin.isTTY && process.stderr.isTTY));
    this.#notify = options.notify ?? ((text) => process.stderr.write(`${text}\n`));
  }

  /** The OAuth2 client the API libraries call through; made on first use (googleapis loads lazily). */
  get client(): OAuth2Client {
    if (this.#client) return this.#client;
    const options = this.#options;
    const client = new (google().auth.OAuth2)({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      endpoints: { oauth2AuthBaseUrl: options.config.authUrl, oauth2TokenUrl: options.config.tokenUrl },
      transporterOptions: { timeout: options.config.timeoutMs },
    });
    // Refreshed tokens are written back so the next process starts with them.
    client.on("tokens", (tokens) => {
      try {
        options.store.save({ ...tokens } as Record<string, unknown>);
      } catch {
        // A read-only token folder costs a refresh next time, nothing more.
      }
    });
    return (this.#client = client);
  }

  /**
   * Runs one API request with credentials in place. A 401 gets one refresh and one retry; a
   * refresh token Google no longer accepts is forgotten and sign-in starts again.
   */
  async call<T>(signal: AbortSignal, request: () => Promise<T>): Promise<T> {
    await loadGoogle();
    await this.#ensureCredentials(signal);
    try {
      return await request();
    } catch (err) {
      if (this.#isTokenRefusal(err)) {
        this.#forget();
        await this.#signIn(signal);
        return this.#retry(signal, request);
      }
      if (httpStatus(err) === 401) {
        const creds = this.client.credentials;
        if (creds.refresh_token) {
          // Dropping the access token makes the client fetch a fresh one before the retry.
          this.client.setCredentials({ ...creds, access_token: null, expiry_date: null });
          return this.#retry(signal, request);
        }
        this.#forget();
        throw this.#signedOut();
      }
      throw googleApiError(err, this.service, signal);
    }
  }

  async #retry<T>(signal: AbortSignal, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      if (this.#isTokenRefusal(err) || httpStatus(err) === 401) {
        this.#forget();
        throw this.#signedOut();
      }
      throw googleApiError(err, this.service, signal);
    }
  }

  #signedOut(): ToolError {
    return new ToolError(
      "PERMISSION_DENIED",
      `Google no longer accepts the saved ${this.service} sign-in (HTTP 401), even after a ` +
        `refresh. The saved tokens were removed; call the tool again to sign in to Google again.`,
    );
  }

  /** The token endpoint refused the refresh token or the client (revoked, expired, wrong secret). */
  #isTokenRefusal(err: unknown): boolean {
    const e = err as { config?: { url?: unknown }; response?: { status?: number; data?: unknown } };
    const url = String(e?.config?.url ?? "");
    const status = e?.response?.status;
    return url.startsWith(this.#options.config.tokenUrl) && (status === 400 || status === 401);
  }

  #forget(): void {
    this.#options.store.clear();
    this.client.setCredentials({});
  }

  async #ensureCredentials(signal: AbortSignal): Promise<void> {
    let creds = this.client.credentials;
    if (!creds.access_token && !creds.refresh_token) {
      const cached = this.#options.store.load();
      if (cached) this.client.setCredentials(cached as Credentials);
      creds = this.client.credentials;
    }
    // An expired access token without a refresh token cannot be renewed: sign in again.
    const expired =
      !creds.refresh_token && (!creds.access_token || (typeof creds.expiry_date === "number" && creds.expiry_date <= Date.now()));
    if (expired) {
      this.#forget();
      await this.#signIn(signal);
    }
  }

  /**
   * Starts (or joins) the loopback sign-in. With a browser open, or a person at a terminal who
   * can copy the printed URL, it waits (bounded); otherwise it fails at once with the URL, and
   * the listener keeps waiting in the background so a later call finds the tokens.
   */
  async #signIn(signal: AbortSignal): Promise<void> {
    let pending = this.#pending;
    if (!pending || Date.now() >= pending.flow.deadline) {
      const flow = await startLoopbackFlow(this.client, {
        scopes: this.#options.scopes,
        waitMs: this.#options.config.authTimeoutMs,
        service: this.service,
      });
      const ready = flow.tokens.then((tokens) => {
        const saved = this.#options.store.save(tokens);
        this.client.setCredentials(saved as Credentials);
      });
      const current: PendingSignIn = { flow, ready, opened: false };
      this.#pending = pending = current;
      ready.then(
        () => this.#clearPending(current),
        () => this.#clearPending(current),
      );
      current.opened = await this.#openBrowser(flow.url).catch(() => false);
      if (!current.opened) {
        this.#notify(`tackle needs a Google sign-in for ${this.service}. Open this address in a browser on this machine:\n  ${flow.url}`);
      }
    }
    if (!pending.opened && !this.#interactive()) {
      const minutes = Math.max(1, Math.round((pending.flow.deadline - Date.now()) / 60_000));
      throw new ToolError(
        "PERMISSION_DENIED",
        `${this.service} needs a Google sign-in, and no browser could be opened here. Ask the user to open this address in a browser on this ` +
          `machine within ${minutes} min and sign in, then call the tool again:\n${pending.flow.url}\n(The sign-in page answers only while ` +
          `this tackle process runs; if it has ended, sign in once from a terminal, e.g. \`tackle call ${this.#options.firstTool ?? "the tool"}\`.)`,
      );
    }
    await abortable(pending.ready, signal);
  }

  #clearPending(p: PendingSignIn): void {
    if (this.#pending === p) this.#pending = undefined;
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new ToolError("CANCELLED", "The call was cancelled while waiting for the Google sign-in."));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ToolError("CANCELLED", "The call was cancelled while waiting for the Google sign-in."));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
