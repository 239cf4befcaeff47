import { google, type calendar_v3 } from "googleapis";
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
  const calendar = google.calendar({
    version: "v3",
    auth: account.client,
    retry: false,
    ...(options.baseUrl ? { rootUrl: options.baseUrl } : {}),
  });
  return { account, calendar, request: (signal) => ({ signal, timeout: options.timeoutMs, retry: false }) };
}
