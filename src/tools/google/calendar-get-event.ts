import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import type { CalendarApi } from "./calendar-api.js";
import { conferenceLinks, EventSchema, formatPerson, formatSpan } from "./calendar-event.js";
import { CalendarId, EventId } from "./calendar-ids.js";
import { unexpectedResponse } from "./google-error.js";
import { htmlToText } from "../../net/html-to-text.js";

/** Event descriptions written in Google Calendar's editor arrive as HTML. */
function descriptionText(text: string): string {
  return /<\/?[a-z][^>]*>/i.test(text) ? htmlToText(text) : text;
}

/** spec 000's calendar_get_event: events.get with attendees, conference links and recurrence. */
export function calendarGetEventTool(api: CalendarApi) {
  return defineTool({
    name: TOOL.calendarGetEvent,
    title: "Get a calendar event",
    description: loadDescription(import.meta.url, "calendar-get-event.txt"),
    input: z.strictObject({ eventId: EventId, calendarId: CalendarId }),
    effect: "read",
    cacheable: false,
    execute: async (args, ctx) => {
      const res = await api.account.call(ctx.signal, () =>
        api.calendar.events.get({ calendarId: args.calendarId, eventId: args.eventId }, api.request(ctx.signal)),
      );
      const parsed = EventSchema.safeParse(res.data);
      if (!parsed.success) throw unexpectedResponse("Google Calendar", `event ${args.eventId} is not the documented shape`);
      const e = parsed.data;
      const links = conferenceLinks(e);
      const attendees = (e.attendees ?? []).map((a) => ({
        email: a.email ?? null,
        name: a.displayName ?? null,
        responseStatus: a.responseStatus ?? "needsAction",
        ...(a.optional ? { optional: true } : {}),
        ...(a.organizer ? { organizer: true } : {}),
      }));
      const lines = [
        `${e.summary ?? "(no title)"} [${e.id}]`,
        `When: ${formatSpan(e.start, e.end)}${e.start?.timeZone ? ` (${e.start.timeZone})` : ""}`,
        `Status: ${e.status ?? "unknown"}`,
        ...(e.location ? [`Location: ${e.location}`] : []),
        ...(e.organizer ? [`Organizer: ${formatPerson(e.organizer)}`] : []),
        ...(e.creator && e.creator.email !== e.organizer?.email ? [`Created by: ${formatPerson(e.creator)}`] : []),
        ...(attendees.length
          ? [
              `Attendees (${attendees.length}):`,
              ...attendees.map(
                (a) =>
                  `  - ${formatPerson({ email: a.email, displayName: a.name })}: ` +
                  `${a.responseStatus}${a.optional ? " (optional)" : ""}${a.organizer ? " (organizer)" : ""}`,
              ),
            ]
          : []),
        ...(links.length
          ? [
              "Conference:",
              ...links.map(
                (l) => `  - ${l.type}: ${l.uri}${l.label && l.label !== l.uri ? ` (${l.label})` : ""}${l.pin ? ` PIN ${l.pin}` : ""}`,
              ),
            ]
          : []),
        ...(e.recurrence?.length ? ["Recurrence:", ...e.recurrence.map((r) => `  ${r}`)] : []),
        ...(e.recurringEventId ? [`Occurrence of recurring event ${e.recurringEventId}`] : []),
        ...(e.htmlLink ? [`Link: ${e.htmlLink}`] : []),
        ...(e.description ? ["", "Description:", descriptionText(e.description)] : []),
      ];
      return {
        content: lines.join("\n"),
        structured: {
          id: e.id,
          summary: e.summary ?? null,
          status: e.status ?? null,
          start: e.start ?? null,
          end: e.end ?? null,
          location: e.location ?? null,
          description: e.description ?? null,
          organizer: e.organizer ?? null,
          attendees,
          conferenceLinks: links,
          recurrence: e.recurrence ?? [],
          recurringEventId: e.recurringEventId ?? null,
          htmlLink: e.htmlLink ?? null,
        },
        untrusted: { source: "google-calendar" },
      };
    },
  });
}
