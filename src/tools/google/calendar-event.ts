import { z } from "zod";
import { nextDay } from "./calendar-time.js";

const When = z.looseObject({ date: z.string().nullish(), dateTime: z.string().nullish(), timeZone: z.string().nullish() });
const Person = z.looseObject({ email: z.string().nullish(), displayName: z.string().nullish(), self: z.boolean().nullish() });

/** A Calendar API Event resource, as far as the tools read it. */
export const EventSchema = z.looseObject({
  id: z.string(),
  status: z.string().nullish(),
  htmlLink: z.string().nullish(),
  summary: z.string().nullish(),
  description: z.string().nullish(),
  location: z.string().nullish(),
  start: When.nullish(),
  end: When.nullish(),
  organizer: Person.nullish(),
  creator: Person.nullish(),
  attendees: z
    .array(
      Person.extend({
        responseStatus: z.string().nullish(),
        optional: z.boolean().nullish(),
        organizer: z.boolean().nullish(),
        resource: z.boolean().nullish(),
      }),
    )
    .nullish(),
  hangoutLink: z.string().nullish(),
  conferenceData: z
    .looseObject({
      entryPoints: z
        .array(
          z.looseObject({
            entryPointType: z.string().nullish(),
            uri: z.string().nullish(),
            label: z.string().nullish(),
            pin: z.string().nullish(),
            passcode: z.string().nullish(),
          }),
        )
        .nullish(),
      conferenceSolution: z.looseObject({ name: z.string().nullish() }).nullish(),
      conferenceId: z.string().nullish(),
    })
    .nullish(),
  recurrence: z.array(z.string()).nullish(),
  recurringEventId: z.string().nullish(),
});
export type CalendarEvent = z.infer<typeof EventSchema>;

type WhenValue = z.infer<typeof When> | null | undefined;

/** "2026-11-25 10:00 → 11:00" style text for an event's span; all-day ends shown inclusively. */
export function formatSpan(start: WhenValue, end: WhenValue): string {
  if (start?.date) {
    const last = end?.date ? nextDay(end.date, -1) : start.date;
    return last > start.date ? `${start.date} – ${last} (all day)` : `${start.date} (all day)`;
  }
  const s = start?.dateTime ?? "?";
  const e = end?.dateTime ?? "?";
  // The same day: show only the end's time.
  const sameDay = s.slice(0, 10) === e.slice(0, 10) && s.length >= 16 && e.length >= 16;
  return `${s} → ${sameDay ? e.slice(11) : e}`;
}

/** "Name <email>" or just the email. */
export function formatPerson(p: { email?: string | null; displayName?: string | null } | null | undefined): string {
  if (!p) return "";
  if (p.displayName && p.email) return `${p.displayName} <${p.email}>`;
  return p.displayName ?? p.email ?? "";
}

/** The fields calendar_list_events reports, flat. */
export function eventSummary(e: CalendarEvent) {
  return {
    id: e.id,
    summary: e.summary ?? "(no title)",
    start: e.start?.dateTime ?? e.start?.date ?? null,
    end: e.end?.dateTime ?? e.end?.date ?? null,
    allDay: Boolean(e.start?.date),
    location: e.location ?? null,
    status: e.status ?? null,
    organizer: e.organizer?.email ?? null,
  };
}

/** Every way to join the meeting: the Meet link and the conference's entry points. */
export function conferenceLinks(e: CalendarEvent): Array<{ type: string; uri: string; label?: string; pin?: string }> {
  const links: Array<{ type: string; uri: string; label?: string; pin?: string }> = [];
  for (const ep of e.conferenceData?.entryPoints ?? []) {
    if (!ep.uri) continue;
    links.push({
      type: ep.entryPointType ?? "link",
      uri: ep.uri,
      ...(ep.label ? { label: ep.label } : {}),
      ...((ep.pin ?? ep.passcode) ? { pin: (ep.pin ?? ep.passcode)! } : {}),
    });
  }
  if (e.hangoutLink && !links.some((l) => l.uri === e.hangoutLink)) links.unshift({ type: "video", uri: e.hangoutLink });
  return links;
}
