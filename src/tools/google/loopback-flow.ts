import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { OAuth2Client } from "./oauth-client.js";
import { ToolError } from "../../core/errors.js";
import type { StoredTokens } from "./token-store.js";

type AuthUrlOptions = NonNullable<Parameters<OAuth2Client["generateAuthUrl"]>[0]>;

/** A sign-in under way: the URL to visit and the tokens it will yield. */
export interface LoopbackFlow {
  url: string;
  redirectUri: string;
  /** Resolves once the browser came back and the code was exchanged; rejects on refusal or timeout. */
  tokens: Promise<StoredTokens>;
  /** When the flow gives up (ms since the epoch). */
  deadline: number;
  /** Stops listening; `tokens` rejects if still pending. */
  cancel(reason?: string): void;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

/**
 * Google's OAuth flow for installed apps with a loopback redirect: listen on 127.0.0.1 at a
 * random port, send the person to Google's consent page with that address as redirect_uri (plus
 * PKCE and a state value), take the code from the redirect, exchange it at the token endpoint.
 * The listener lives at most `waitMs`.
 */
export async function startLoopbackFlow(
  client: OAuth2Client,
  options: { scopes: string[]; waitMs: number; service: string },
): Promise<LoopbackFlow> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  // The listener must not keep a one-shot CLI alive on its own.
  server.unref();
  const { port } = server.address() as AddressInfo;
  const redirectUri = `http://127.0.0.1:${port}/oauth2callback`;
  const state = randomBytes(16).toString("hex");
  const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
  const url = client.generateAuthUrl({
    access_type: "offline",
    // "consent" makes Google issue a refresh token even when the app was approved before.
    prompt: "consent",
    scope: options.scopes,
    state,
    redirect_uri: redirectUri,
    code_challenge: codeChallenge,
    code_challenge_method: "S256" as AuthUrlOptions["code_challenge_method"],
  });
  const deadline = Date.now() + options.waitMs;

  let fail: (err: Error) => void = () => {};
  const code = new Promise<string>((resolve, reject) => {
    fail = reject;
    server.on("request", (req, res) => {
      const u = new URL(req.url ?? "/", redirectUri);
      if (u.pathname !== "/oauth2callback") {
        res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
        return;
      }
      // Anything without our state is not Google answering this flow: ignore it and keep waiting.
      if (u.searchParams.get("state") !== state) {
        res
          .writeHead(400, { "content-type": "text/html; charset=utf-8" })
          .end(PAGE("Sign-in failed", "This link does not belong to the sign-in under way."));
        return;
      }
      const error = u.searchParams.get("error");
      if (error) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE("Sign-in cancelled", "You can close this window."));
        reject(
          new ToolError(
            "PERMISSION_DENIED",
            `The Google sign-in for ${options.service} was not granted (${error}). Do not retry unless the user asks.`,
          ),
        );
        return;
      }
      const got = u.searchParams.get("code");
      if (!got) {
        res.writeHead(400, { "content-type": "text/html; charset=utf-8" }).end(PAGE("Sign-in failed", "The redirect carried no code."));
        return;
      }
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(PAGE("Signed in", `tackle can now use ${options.service}. You can close this window.`));
      resolve(got);
    });
  });
  const timer = setTimeout(() => {
    fail(
      new ToolError(
        "PERMISSION_DENIED",
        `The Google sign-in for ${options.service} was not completed within ` +
          `${Math.round(options.waitMs / 1000)} s. Call the tool again to start a new sign-in.`,
        { recoverable: false },
      ),
    );
  }, options.waitMs);
  timer.unref();

  const close = () => {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  };
  const tokens = code.then(
    async (authCode) => {
      close();
      try {
        const { tokens: got } = await client.getToken({ code: authCode, codeVerifier, redirect_uri: redirectUri });
        if (!got.access_token) throw new Error("the token response has no access_token");
        return got as StoredTokens;
      } catch (err) {
        const why = (err as { response?: { data?: { error?: string; error_description?: string } } }).response?.data;
        const detail = why?.error ? `${why.error}${why.error_description ? `: ${why.error_description}` : ""}` : (err as Error).message;
        throw new ToolError(
          "PERMISSION_DENIED",
          `Exchanging the Google sign-in code for ${options.service} failed (${detail}). Call the tool again to sign in again.`,
        );
      }
    },
    (err: unknown) => {
      close();
      throw err;
    },
  );
  return {
    url,
    redirectUri,
    tokens,
    deadline,
    cancel: (reason = "The sign-in was cancelled.") => fail(new ToolError("CANCELLED", reason)),
  };
}
