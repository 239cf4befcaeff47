import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import type { CalendarApi } from "./calendar-api.js";
import { EventSchema, eventSummary, formatSpan } from "./calendar-event.js";
import { CalendarId } from "./calendar-ids.js";
import { localToday, parseCalendarTime, rangeBound, type CalendarTime } from "./calendar-time.js";
import { unexpectedResponse } from "./google-error.js";

const TIME_HINT = "an ISO 8601 date-time (2026-11-25T09:00:00Z, 2026-11-25T09:00) or a day (2026-11-25)";

const ListSchema = z.looseObject({
  items: z.array(z.unknown()).optional(),
  nextPageToken: z.string().optional(),
  timeZone: z.string().optional(),
});

const Input = z
  .strictObject({
    timeMin: z.string().optional().describe(`Start of the range: ${TIME_HINT}.`),
    timeMax: z.string().optional().describe(`End of the range: ${TIME_HINT}; a day includes the whole day.`),
    date: z.string().optional().describe("One day, YYYY-MM-DD (instead of timeMin/timeMax)."),
    query: z.string().max(500).optional().describe("Free text to search for in the events."),
    maxResults: z.number().int().min(1).max(250).default(25).describe("At most this many events (1-250, default 25)."),
    calendarId: CalendarId,
  })
  .superRefine((args, ctx) => {
    for (const key of ["timeMin", "timeMax", "date"] as const) {
      const v = args[key];
      if (v === undefined) continue;
      const t = parseCalendarTime(v);
      if (!t)
        ctx.addIssue({ code: "custom", path: [key], message: `expected ${key === "date" ? "a day YYYY-MM-DD" : TIME_HINT}, not "${v}"` });
      else if (key === "date" && t.kind !== "date")
        ctx.addIssue({ code: "custom", path: [key], message: "date takes a day YYYY-MM-DD; use timeMin/timeMax for times" });
    }
    if (args.date && (args.timeMin || args.timeMax))
      ctx.addIssue({ code: "custom", path: ["date"], message: "give either date or timeMin/timeMax, not both" });
    const min = args.timeMin ? parseCalendarTime(args.timeMin) : undefined;
    const max = args.timeMax ? parseCalendarTime(args.timeMax) : undefined;
    if (min && max && new Date(rangeBound(max, "max")) <= new Date(rangeBound(min, "min"))) {
      ctx.addIssue({ code: "custom", path: ["timeMax"], message: "timeMax must be after timeMin" });
    }
  });

/** The range to ask for: what was given, else today (local), else from today on for a search. */
export function listRange(
  args: { timeMin?: string | undefined; timeMax?: string | undefined; date?: string | undefined; query?: string | undefined },
  now = new Date(),
) {
  const parse = (v: string | undefined): CalendarTime | undefined => (v ? parseCalendarTime(v) : undefined);
  if (args.date) {
    const day = parse(args.date)!;
    return { timeMin: rangeBound(day, "min"), timeMax: rangeBound(day, "max"), label: `on ${args.date}` };
  }
  const min = parse(args.timeMin);
  const max = parse(args.timeMax);
  const today: CalendarTime = { kind: "date", date: localToday(now) };
  if (min || max) {
    // "Until Friday" means from today, not from the calendar's first event (unless Friday is past).
    const from = min
      ? rangeBound(min, "min")
      : new Date(rangeBound(max!, "max")) > new Date(rangeBound(today, "min"))
        ? rangeBound(today, "min")
        : undefined;
    return {
      ...(from ? { timeMin: from } : {}),
      ...(max ? { timeMax: rangeBound(max, "max") } : {}),
      label: `${args.timeMin ? `from ${args.timeMin}` : from ? "from today" : ""} ${args.timeMax ? `until ${args.timeMax}` : "on"}`.trim(),
    };
  }
  if (args.query) return { timeMin: rangeBound(today, "min"), label: "from today on" };
  return { timeMin: rangeBound(today, "min"), timeMax: rangeBound(today, "max"), label: `today (${today.date})` };
}

/** spec 000's calendar_list_events: events.list with single events in start order. */
export function calendarListEventsTool(api: CalendarApi) {
  return defineTool({
    name: TOOL.calendarListEvents,
    title: "List calendar events",
    description: loadDescription(import.meta.url, "calendar-list-events.txt"),
    input: Input,
    effect: "read",
    // Events change (calendar_create_event among others): never answer from a cache.
    cacheable: false,
    execute: async (args, ctx) => {
      const range = listRange(args);
      const res = await api.account.call(ctx.signal, () =>
        api.calendar.events.list(
          {
            calendarId: args.calendarId,
            singleEvents: true,
            orderBy: "startTime",
            maxResults: args.maxResults,
            ...(range.timeMin ? { timeMin: range.timeMin } : {}),
            ...(range.timeMax ? { timeMax: range.timeMax } : {}),
            ...(args.query ? { q: args.query } : {}),
          },
          api.request(ctx.signal),
        ),
      );
      const list = ListSchema.safeParse(res.data);
      if (!list.success) throw unexpectedResponse("Google Calendar", "the event list is not the documented shape");
      const events = (list.data.items ?? []).map((item) => {
        const e = EventSchema.safeParse(item);
        if (!e.success) throw unexpectedResponse("Google Calendar", "an event lacks its id");
        return e.data;
      });
      const what = `${args.query ? ` matching "${args.query}"` : ""} ${range.label}`;
      if (events.length === 0) return { content: `No events${what}.`, structured: { events: [] } };
      const lines = events.map((e) => {
        const s = eventSummary(e);
        const extra = [
          s.location ? `Location: ${s.location}` : "",
          s.organizer ? `Organizer: ${s.organizer}` : "",
          s.status ? `Status: ${s.status}` : "",
        ].filter(Boolean);
        return `- ${s.summary} [${s.id}]\n  ${formatSpan(e.start, e.end)}${extra.length ? `\n  ${extra.join(" · ")}` : ""}`;
      });
      const more = list.data.nextPageToken ? [`(More events exist; narrow the range or raise maxResults.)`] : [];
      return {
        content: [`${events.length} event${events.length === 1 ? "" : "s"}${what}:`, ...lines, ...more].join("\n"),
        structured: { events: events.map(eventSummary), timeZone: list.data.timeZone ?? null },
        // Titles and places come from whoever sent the invitation.
        untrusted: { source: "google-calendar" },
      };
    },
  });
}
