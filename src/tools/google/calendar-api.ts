import type { calendar_v3 } from "googleapis";
import { google } from "./google-lib.js";
import type { GoogleAccount } from "./google-account.js";

/** What the Calendar tools share: the signed-in account and Google's Calendar client bound to it. */
export interface CalendarApi {
  account: GoogleAccount;
  calendar: calendar_v3.Calendar;
  /** Per-request options: googleapis' own retries are off, the runner retries reads. */
  request(signal: AbortSignal): { signal: AbortSignal; timeout: number; retry: false };
}

/** Google's Calendar client, pointed at `baseUrl` when configured (a local fake in tests). */
export function createCalendarApi(account: GoogleAccount, options: { baseUrl?: string; timeoutMs: number }): CalendarApi {
  let client: calendar_v3.Calendar | undefined;
  return {
    account,
    // Made on first use, inside account.call, once googleapis has loaded.
    get calendar() {
      client ??= google().calendar({
        version: "v3",
        auth: account.client,
        retry: false,
        ...(options.baseUrl ? { rootUrl: options.baseUrl } : {}),
      });
      return client;
    },
    request: (signal) => ({ signal, timeout: options.timeoutMs, retry: false }),
  };
}
