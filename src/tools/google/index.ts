import path from "node:path";
import type { AnyTool } from "../../core/tool.js";
import type { GroupContext, ToolGroup } from "../group.js";
import { hasSecrets } from "../lazy-groups.js";
import { GOOGLE } from "./manifest.js";
import { createCalendarApi } from "./calendar-api.js";
import { calendarCreateEventTool } from "./calendar-create-event.js";
import { calendarGetEventTool } from "./calendar-get-event.js";
import { calendarListEventsTool } from "./calendar-list-events.js";
import { googleServiceConfig } from "./config.js";
import { createGmailApi } from "./gmail-api.js";
import { gmailReadTool } from "./gmail-read.js";
import { gmailSearchTool } from "./gmail-search.js";
import { gmailSendTool } from "./gmail-send.js";
import { GoogleAccount, type SignInOptions } from "./google-account.js";
import { TokenStore } from "./token-store.js";

/** Read mail and send it; nothing that deletes or changes mail. */
export const GMAIL_SCOPES = ["https://www.googleapis.com/auth/gmail.readonly", "https://www.googleapis.com/auth/gmail.send"];
/** Read and create events on any calendar the user can reach. */
export const CALENDAR_SCOPES = ["https://www.googleapis.com/auth/calendar.events"];

/**
 * The Gmail and Calendar tools, with sign-in parts replaceable (tests act as the browser).
 * Returns no tools unless both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are set.
 */
export function createGoogleTools(ctx: GroupContext, signIn: SignInOptions = {}): AnyTool[] {
  if (!hasSecrets(ctx.env, GOOGLE.needs)) return [];
  const clientId = ctx.env["GOOGLE_CLIENT_ID"]!.trim();
  const clientSecret = ctx.env["GOOGLE_CLIENT_SECRET"]!.trim();
  const config = googleServiceConfig(ctx.config, ctx.workspace);
  const account = (service: string, folder: string, scopes: string[], firstTool: string) =>
    new GoogleAccount({
      ...signIn,
      service,
      clientId,
      clientSecret,
      scopes,
      config,
      firstTool,
      store: new TokenStore(path.join(config.tokenDir, folder)),
    });
  const api = { ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}), timeoutMs: config.timeoutMs };
  const gmail = createGmailApi(account("Gmail", ".gmail-tokens", GMAIL_SCOPES, "gmail_search"), api);
  const calendar = createCalendarApi(account("Google Calendar", ".calendar-tokens", CALENDAR_SCOPES, "calendar_list_events"), api);
  return [
    gmailSearchTool(gmail),
    gmailReadTool(gmail),
    gmailSendTool(gmail),
    calendarListEventsTool(calendar),
    calendarCreateEventTool(calendar),
    calendarGetEventTool(calendar),
  ];
}

/**
 * spec 000's Google tools: gmail_search, gmail_read, gmail_send, calendar_list_events,
 * calendar_create_event, calendar_get_event, registered when the Google client id and secret are
 * set. `services.google` in tackle.config.json sets baseUrl, authUrl, tokenUrl and tokenDir.
 */
export const googleTools: ToolGroup = (ctx) => createGoogleTools(ctx);
