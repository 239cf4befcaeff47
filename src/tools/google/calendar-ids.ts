import { z } from "zod";

/** A calendar id: "primary" or an address-like id (abc@group.calendar.google.com). */
export const CalendarId = z
  .string()
  .regex(/^[^\s/\\?#]{1,512}$/, 'a calendar id has no spaces or slashes ("primary", or an id like team@group.calendar.google.com)')
  .default("primary")
  .describe('Which calendar; default "primary" (the user\'s own).');

/** An event id as the API returns it (recurring instances carry a _YYYYMMDDTHHMMSSZ suffix). */
export const EventId = z
  .string()
  .regex(/^[A-Za-z0-9_@.-]{1,1024}$/, "an event id is letters, digits and _ @ . - (take it from calendar_list_events)")
  .describe("The event id, as calendar_list_events returns it.");
