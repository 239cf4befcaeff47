/**
 * Dates and times as the Calendar tools take them: a day (YYYY-MM-DD), or an ISO 8601 date-time
 * with or without a zone. A date-time without a zone is wall-clock time in the local (or given)
 * time zone.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export type CalendarTime = { kind: "date"; date: string } | { kind: "dateTime"; text: string; zoned: boolean };

/** Parses a day or date-time; undefined when it is neither (or names an impossible day). */
export function parseCalendarTime(text: string): CalendarTime | undefined {
  const t = text.trim();
  const d = DATE.exec(t);
  if (d) return validDay(+d[1]!, +d[2]!, +d[3]!) ? { kind: "date", date: t } : undefined;
  const m = DATETIME.exec(t);
  if (!m) return undefined;
  if (!validDay(+m[1]!, +m[2]!, +m[3]!) || +m[4]! > 23 || +m[5]! > 59 || +(m[6] ?? 0) > 59) return undefined;
  const normalised = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? "00"}${m[7] ?? ""}${m[8] ? normaliseZone(m[8]) : ""}`;
  return { kind: "dateTime", text: normalised, zoned: Boolean(m[8]) };
}

function normaliseZone(zone: string): string {
  if (/^z$/i.test(zone)) return "Z";
  return zone.includes(":") ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
}

function validDay(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** The day after `date` (YYYY-MM-DD), for Google's exclusive all-day end dates. */
export function nextDay(date: string, days = 1): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Local midnight at the start of `date` (YYYY-MM-DD), as an instant. */
export function localMidnight(date: string): Date {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d);
}

/** Today's local date, YYYY-MM-DD. */
export function localToday(now = new Date()): string {
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
}

/** The instant a date-time names; wall-clock text without a zone is read in local time. */
export function instantOf(t: CalendarTime): Date {
  return t.kind === "date" ? localMidnight(t.date) : new Date(t.text);
}

/**
 * A range bound as RFC 3339 for events.list: a day starts at local midnight; as an upper bound
 * a day is inclusive (the range runs to the next midnight).
 */
export function rangeBound(t: CalendarTime, bound: "min" | "max"): string {
  if (t.kind === "date") return localMidnight(bound === "max" ? nextDay(t.date) : t.date).toISOString();
  return t.zoned ? t.text : new Date(t.text).toISOString();
}

/** Adds minutes to a zone-less wall-clock date-time, keeping it zone-less. */
export function addMinutesWallClock(text: string, minutes: number): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(text)!;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]! + minutes, +m[6]!));
  return d.toISOString().slice(0, 19);
}

/** The local IANA time zone (what "today" and zone-less times mean). */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
