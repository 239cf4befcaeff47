import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import { TOOL } from "../names.js";
import type { CalendarApi } from "./calendar-api.js";
import { EventSchema, formatSpan } from "./calendar-event.js";
import { CalendarId } from "./calendar-ids.js";
import { addMinutesWallClock, instantOf, isTimeZone, localTimeZone, nextDay, parseCalendarTime } from "./calendar-time.js";
import { unexpectedResponse } from "./google-error.js";
import { splitAddresses } from "./mime-message.js";

const EMAIL = z.email();
const TIME_HINT = "an ISO 8601 date-time (2026-11-25T14:00:00) or a day (2026-11-25)";

const Input = z
  .strictObject({
    summary: z.string().min(1).max(1024).describe("The event's title."),
    start: z.string().describe(`When it starts: ${TIME_HINT}.`),
    end: z
      .string()
      .optional()
      .describe("When it ends: same kind as start. All-day: the last day, inclusive. Default: one day, or one hour."),
    description: z.string().max(8192).optional().describe("Notes shown in the event."),
    location: z.string().max(1024).optional().describe("Where."),
    attendees: z
      .union([z.string(), z.array(z.string())])
      .transform((v) => (typeof v === "string" ? splitAddresses(v) : v.map((s) => s.trim()).filter(Boolean)))
      .optional()
      .describe("Email addresses to invite."),
    timeZone: z.string().optional().describe("IANA time zone for times without an offset, e.g. America/New_York. Default the local zone."),
    calendarId: CalendarId,
    sendUpdates: z
      .enum(["all", "externalOnly", "none"])
      .default("all")
      .describe('Who gets invitation emails: "all" (default), "externalOnly" or "none".'),
  })
  .superRefine((args, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    const start = parseCalendarTime(args.start);
    const end = args.end !== undefined ? parseCalendarTime(args.end) : undefined;
    if (!start) issue("start", `expected ${TIME_HINT}, not "${args.start}"`);
    if (args.end !== undefined && !end) issue("end", `expected ${TIME_HINT}, not "${args.end}"`);
    if (start && end) {
      if (start.kind !== end.kind) issue("end", "start and end must both be days (all-day event) or both date-times (timed event)");
      else if (start.kind === "date" && end.kind === "date" && end.date < start.date)
        issue("end", "the last day cannot be before the first");
      else if (start.kind === "dateTime" && instantOf(end) <= instantOf(start)) issue("end", "end must be after start");
    }
    const zone = args.timeZone;
    if (zone !== undefined && !isTimeZone(zone)) issue("timeZone", `"${zone}" is not an IANA time zone (like Europe/London)`);
    for (const a of args.attendees ?? []) if (!EMAIL.safeParse(a).success) issue("attendees", `"${a}" is not an email address`);
  });

type CreateArgs = z.output<typeof Input>;

/** The event resource to insert: dates for all-day events (end exclusive), date-times otherwise. */
export function eventBody(args: CreateArgs) {
  const start = parseCalendarTime(args.start)!;
  const end = args.end !== undefined ? parseCalendarTime(args.end)! : undefined;
  const zone = args.timeZone;
  let when: { start: Record<string, string>; end: Record<string, string> };
  if (start.kind === "date") {
    // Google's all-day end is the day after the last day.
    const last = end?.kind === "date" ? end.date : start.date;
    when = { start: { date: start.date }, end: { date: nextDay(last) } };
  } else {
    const tz = zone ?? (start.zoned ? undefined : localTimeZone());
    const endText =
      end?.kind === "dateTime"
        ? end.text
        : start.zoned
          ? new Date(new Date(start.text).getTime() + 3_600_000).toISOString().replace(".000Z", "Z")
          : addMinutesWallClock(start.text, 60);
    when = {
      start: { dateTime: start.text, ...(tz ? { timeZone: tz } : {}) },
      end: { dateTime: endText, ...(tz ? { timeZone: tz } : {}) },
    };
  }
  return {
    summary: args.summary,
    ...when,
    ...(args.description ? { description: args.description } : {}),
    ...(args.location ? { location: args.location } : {}),
    ...(args.attendees?.length ? { attendees: args.attendees.map((email) => ({ email })) } : {}),
  };
}

/** spec 000's calendar_create_event: events.insert; asks a person first. */
export function calendarCreateEventTool(api: CalendarApi) {
  return defineTool({
    name: TOOL.calendarCreateEvent,
    title: "Create a calendar event",
    description: loadDescription(import.meta.url, "calendar-create-event.txt"),
    input: Input,
    parameterAliases: { timezone: "timeZone" },
    effect: "network",
    // It invites people and fills their calendars: a person always confirms.
    needsApproval: () => true,
    idempotent: false,
    preview: (args) => {
      const body = eventBody(args);
      return [
        `Calendar: ${args.calendarId}`,
        `Event: ${args.summary}`,
        `When: ${formatSpan(body.start, body.end)}${body.start.timeZone ? ` (${body.start.timeZone})` : ""}`,
        ...(args.location ? [`Where: ${args.location}`] : []),
        ...(args.attendees?.length ? [`Invites: ${args.attendees.join(", ")} (emails: ${args.sendUpdates})`] : []),
        ...(args.description ? ["", args.description] : []),
      ].join("\n");
    },
    execute: async (args, ctx) => {
      const requestBody = eventBody(args);
      let res;
      try {
        res = await api.account.call(ctx.signal, () =>
          api.calendar.events.insert({ calendarId: args.calendarId, sendUpdates: args.sendUpdates, requestBody }, api.request(ctx.signal)),
        );
      } catch (err) {
        // After a lost answer the event may exist: creating it again would duplicate it.
        if (err instanceof ToolError && (err.code === "TIMEOUT" || err.code === "NETWORK_ERROR" || err.code === "UNAVAILABLE")) {
          throw new ToolError(
            err.code,
            `${err.message} The event may or may not have been created: check with calendar_list_events before creating it again.`,
            {
              recoverable: false,
              cause: err,
            },
          );
        }
        throw err;
      }
      const created = EventSchema.safeParse(res.data);
      if (!created.success)
        throw unexpectedResponse("Google Calendar", "the created event has no id; check the calendar before creating it again");
      const e = created.data;
      const lines = [
        `Created "${e.summary ?? args.summary}" [${e.id}]`,
        `When: ${formatSpan(e.start ?? requestBody.start, e.end ?? requestBody.end)}`,
        ...(e.location ? [`Where: ${e.location}`] : []),
        ...(e.attendees?.length ? [`Invited: ${e.attendees.map((a) => a.email).join(", ")}`] : []),
        ...(e.htmlLink ? [`Link: ${e.htmlLink}`] : []),
      ];
      return {
        content: lines.join("\n"),
        structured: { id: e.id, htmlLink: e.htmlLink ?? null, start: e.start ?? requestBody.start, end: e.end ?? requestBody.end },
      };
    },
  });
}
