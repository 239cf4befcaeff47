import type { gmail_v1 } from "googleapis";
import { google } from "./google-lib.js";
import type { GoogleAccount } from "./google-account.js";

/** What the Gmail tools share: the signed-in account and Google's Gmail client bound to it. */
export interface GmailApi {
  account: GoogleAccount;
  gmail: gmail_v1.Gmail;
  /** Per-request options: googleapis' own retries are off, the runner retries reads. */
  request(signal: AbortSignal): { signal: AbortSignal; timeout: number; retry: false };
}

/** Google's Gmail client, pointed at `baseUrl` when configured (a local fake in tests). */
export function createGmailApi(account: GoogleAccount, options: { baseUrl?: string; timeoutMs: number }): GmailApi {
  let client: gmail_v1.Gmail | undefined;
  return {
    account,
    // Made on first use, inside account.call, once googleapis has loaded.
    get gmail() {
      client ??= google().gmail({
        version: "v1",
        auth: account.client,
        retry: false,
        ...(options.baseUrl ? { rootUrl: options.baseUrl } : {}),
      });
      return client;
    },
    request: (signal) => ({ signal, timeout: options.timeoutMs, retry: false }),
  };
}
