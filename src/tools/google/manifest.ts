import type { GroupManifest } from "../group.js";

/** The google group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const GOOGLE = {
  names: {
    gmailSearch: "gmail_search",
    gmailRead: "gmail_read",
    gmailSend: "gmail_send",
    calendarListEvents: "calendar_list_events",
    calendarCreateEvent: "calendar_create_event",
    calendarGetEvent: "calendar_get_event",
  },
  needs: ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
  load: async () => (await import("./index.js")).googleTools,
} as const satisfies GroupManifest;
