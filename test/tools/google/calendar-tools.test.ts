import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { googleHarness, type Harness } from "../../fixtures/google/google-harness.js";
import { localDay } from "../../fixtures/google/google-data.js";
import { localTimeZone } from "../../../src/tools/google/calendar-time.js";

let h: Harness;
beforeEach(async () => {
  h = await googleHarness();
});
afterEach(async () => {
  await h.close();
});

const listRequests = () => h.fake.requests.filter((r) => r.method === "GET" && r.path.endsWith("/events"));

describe("calendar_list_events", () => {
  it("lists today's events (the local day) by default", async () => {
    const outcome = await h.runner().run({ name: "calendar_list_events", args: {} });
    expect(outcome.status).toBe("success");
    const req = listRequests()[0]!;
    expect(req.path).toBe("/calendar/v3/calendars/primary/events");
    const today = localDay(0);
    const [y, m, d] = today.split("-").map(Number) as [number, number, number];
    expect(req.query.get("timeMin")).toBe(new Date(y, m - 1, d).toISOString());
    expect(req.query.get("timeMax")).toBe(new Date(y, m - 1, d + 1).toISOString());
    expect(req.query.get("singleEvents")).toBe("true");
    expect(req.query.get("orderBy")).toBe("startTime");
    expect(outcome.content).toContain(`1 event today (${today}):`);
    expect(outcome.content).toContain("- Team standup [standup001]");
    expect(outcome.content).toContain("Location: Room 4 · Organizer: lead@example.com · Status: confirmed");
    expect(outcome.content).not.toContain("1:1 with Dana");
    const events = (outcome.structured as { events: Array<Record<string, unknown>> }).events;
    expect(Object.keys(events[0]!).sort()).toEqual(["allDay", "end", "id", "location", "organizer", "start", "status", "summary"]);
  });

  it("takes a date range; a day as timeMax includes the whole day", async () => {
    const outcome = await h.runner().run({ name: "calendar_list_events", args: { timeMin: localDay(-7), timeMax: localDay(1) } });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toContain("3 events");
    expect(outcome.content.indexOf("Quarterly review")).toBeLessThan(outcome.content.indexOf("Team standup"));
    expect(outcome.content).toContain("Status: tentative");
    const [y, m, d] = localDay(1).split("-").map(Number) as [number, number, number];
    expect(listRequests()[0]!.query.get("timeMax")).toBe(new Date(y, m - 1, d + 1).toISOString());
  });

  it("takes one date, RFC 3339 bounds and a query", async () => {
    await h.runner().run({ name: "calendar_list_events", args: { date: localDay(1) } });
    await h.runner().run({
      name: "calendar_list_events",
      args: {
        timeMin: "2026-11-01T09:00:00Z",
        timeMax: "2026-11-01T17:00:00+01:00",
        query: "standup",
        maxResults: 5,
        calendarId: "team@group.calendar.google.com",
      },
    });
    const [one, two] = listRequests();
    expect(one!.query.get("timeMin")).not.toBe(one!.query.get("timeMax"));
    expect(two!.path).toBe("/calendar/v3/calendars/team@group.calendar.google.com/events");
    expect(two!.query.get("timeMin")).toBe("2026-11-01T09:00:00Z");
    expect(two!.query.get("timeMax")).toBe("2026-11-01T17:00:00+01:00");
    expect(two!.query.get("q")).toBe("standup");
    expect(two!.query.get("maxResults")).toBe("5");
  });

  it("a query without a range searches from today on", async () => {
    const outcome = await h.runner().run({ name: "calendar_list_events", args: { query: "dana" } });
    expect(outcome.content).toContain("1:1 with Dana");
    expect(listRequests()[0]!.query.has("timeMax")).toBe(false);
  });

  it("with only timeMax starts the range today (not at the calendar's first event)", async () => {
    const outcome = await h.runner().run({ name: "calendar_list_events", args: { timeMax: localDay(2) } });
    expect(outcome.content).toContain(`2 events from today until ${localDay(2)}:`);
    expect(outcome.content).not.toContain("Quarterly review");
    const [y, m, d] = localDay(0).split("-").map(Number) as [number, number, number];
    expect(listRequests()[0]!.query.get("timeMin")).toBe(new Date(y, m - 1, d).toISOString());
    await h.runner().run({ name: "calendar_list_events", args: { timeMax: "2020-01-01" } });
    expect(listRequests()[1]!.query.has("timeMin")).toBe(false);
  });

  it("refuses bad ranges before any request", async () => {
    for (const args of [
      { timeMin: "tomorrow" },
      { date: "2026-02-30" },
      { timeMin: "2026-11-05", timeMax: "2026-11-01" },
      { date: "2026-11-05", timeMin: "2026-11-01" },
      { calendarId: "a/b" },
    ]) {
      const outcome = await h.runner().run({ name: "calendar_list_events", args });
      expect(outcome.error?.code, JSON.stringify(args)).toBe("INVALID_ARGS");
    }
    expect(h.fake.requests).toHaveLength(0);
  });

  it("reports an unknown calendar", async () => {
    const outcome = await h.runner().run({ name: "calendar_list_events", args: { calendarId: "nope@group.calendar.google.com" } });
    expect(outcome.status).toBe("error");
    expect(outcome.content).toMatch(/HTTP 404/);
  });
});

describe("calendar_get_event", () => {
  it("gives attendees with responses, conference links and recurrence rules", async () => {
    const outcome = await h.runner().run({ name: "calendar_get_event", args: { eventId: "standup001" } });
    expect(outcome.status).toBe("success");
    expect(h.fake.requests[0]!.path).toBe("/calendar/v3/calendars/primary/events/standup001");
    const c = outcome.content;
    expect(c).toContain("Team standup [standup001]");
    expect(c).toContain("Organizer: Team Lead <lead@example.com>");
    expect(c).toContain("- me@example.com: accepted");
    expect(c).toContain("- Bob <bob@example.com>: declined");
    expect(c).toContain("- carol@example.com: tentative (optional)");
    expect(c).toContain("- video: https://meet.google.com/abc-defg-hij");
    expect(c).toContain("- phone: tel:+1-555-0100 (+1 555-0100) PIN 123456");
    expect(c).toContain("RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR");
    const s = outcome.structured as { conferenceLinks: unknown[]; attendees: unknown[]; recurrence: string[] };
    expect(s.conferenceLinks).toHaveLength(2);
    expect(s.attendees).toHaveLength(4);
  });

  it("shows a hangoutLink even without conferenceData", async () => {
    h.fake.events.get("primary")!.push({
      id: "meetonly1",
      summary: "Quick call",
      start: { dateTime: "2026-11-25T10:00:00Z" },
      end: { dateTime: "2026-11-25T10:15:00Z" },
      hangoutLink: "https://meet.google.com/xyz",
    });
    const outcome = await h.runner().run({ name: "calendar_get_event", args: { eventId: "meetonly1" } });
    expect(outcome.content).toContain("- video: https://meet.google.com/xyz");
    expect(outcome.content).toContain("When: 2026-11-25T10:00:00Z → 10:15:00Z");
  });

  it("turns an HTML description into text", async () => {
    h.fake.events.get("primary")!.push({
      id: "htmldesc1",
      summary: "Offsite",
      start: { date: "2026-12-01" },
      end: { date: "2026-12-02" },
      description: "<b>Agenda</b><br><ul><li>Plan</li><li>Lunch</li></ul>",
    });
    const outcome = await h.runner().run({ name: "calendar_get_event", args: { eventId: "htmldesc1" } });
    expect(outcome.content).toContain("When: 2026-12-01 (all day)");
    expect(outcome.content).toMatch(/Agenda\n+• Plan\n• Lunch/);
    expect(outcome.content).not.toContain("<b>");
  });

  it("reports an unknown event id", async () => {
    const outcome = await h.runner().run({ name: "calendar_get_event", args: { eventId: "missing123" } });
    expect(outcome.status).toBe("error");
    expect(outcome.content).toMatch(/HTTP 404/);
  });
});

describe("calendar_create_event", () => {
  const posted = () =>
    h.fake.requests.filter((r) => r.method === "POST").map((r) => ({ query: r.query, body: JSON.parse(r.body) as Record<string, any> }));

  it("asks for approval with a preview", async () => {
    const asked: Array<{ preview?: string }> = [];
    const r = h.runner({ approval: "safe", approver: async (req) => (asked.push(req), { approved: false }) });
    const outcome = await r.run({
      name: "calendar_create_event",
      args: { summary: "Lunch", start: "2026-11-25T12:00:00Z", attendees: ["bob@example.com"] },
    });
    expect(outcome.status).toBe("rejected");
    expect(asked[0]!.preview).toContain("Event: Lunch");
    expect(asked[0]!.preview).toContain("Invites: bob@example.com (emails: all)");
    expect(posted()).toHaveLength(0);
  });

  it("creates a timed event with attendees", async () => {
    const outcome = await h.runner().run({
      name: "calendar_create_event",
      args: {
        summary: "Design review",
        start: "2026-11-25T14:00:00+01:00",
        end: "2026-11-25T15:30:00+01:00",
        description: "Bring sketches",
        location: "Room 2",
        attendees: "bob@example.com, carol@example.com",
      },
    });
    expect(outcome.status).toBe("success");
    const [p] = posted();
    expect(p!.query.get("sendUpdates")).toBe("all");
    expect(p!.body).toMatchObject({
      summary: "Design review",
      start: { dateTime: "2026-11-25T14:00:00+01:00" },
      end: { dateTime: "2026-11-25T15:30:00+01:00" },
      description: "Bring sketches",
      location: "Room 2",
      attendees: [{ email: "bob@example.com" }, { email: "carol@example.com" }],
    });
    expect(outcome.content).toMatch(/Created "Design review" \[evt\d+\]/);
    expect(outcome.content).toContain("Invited: bob@example.com, carol@example.com");
    const list = await h.runner().run({ name: "calendar_list_events", args: { date: "2026-11-25" } });
    expect(list.content).toContain("Design review");
  });

  it("reads zone-less times in the given or local time zone; default length one hour", async () => {
    await h.runner().run({ name: "calendar_create_event", args: { summary: "A", start: "2026-11-25T09:00", timeZone: "Europe/Berlin" } });
    await h.runner().run({ name: "calendar_create_event", args: { summary: "B", start: "2026-11-25T23:30:00" } });
    const [a, b] = posted();
    expect(a!.body["start"]).toEqual({ dateTime: "2026-11-25T09:00:00", timeZone: "Europe/Berlin" });
    expect(a!.body["end"]).toEqual({ dateTime: "2026-11-25T10:00:00", timeZone: "Europe/Berlin" });
    expect(b!.body["end"]).toEqual({ dateTime: "2026-11-26T00:30:00", timeZone: localTimeZone() });
  });

  it("creates all-day events with date (not dateTime) and an exclusive end", async () => {
    await h.runner().run({ name: "calendar_create_event", args: { summary: "Holiday", start: "2026-12-24" } });
    await h.runner().run({ name: "calendar_create_event", args: { summary: "Trip", start: "2026-12-30", end: "2027-01-02" } });
    const [one, many] = posted();
    expect(one!.body["start"]).toEqual({ date: "2026-12-24" });
    expect(one!.body["end"]).toEqual({ date: "2026-12-25" });
    expect(many!.body["end"]).toEqual({ date: "2027-01-03" });
    const got = await h.runner().run({ name: "calendar_list_events", args: { timeMin: "2026-12-30", timeMax: "2027-01-02" } });
    expect(got.content).toContain("2026-12-30 – 2027-01-02 (all day)");
  });

  it("refuses impossible events before any request", async () => {
    const cases = [
      { summary: "x", start: "2026-11-25T10:00:00Z", end: "2026-11-25T09:00:00Z" },
      { summary: "x", start: "2026-11-25", end: "2026-11-25T10:00:00Z" },
      { summary: "x", start: "2026-11-25", end: "2026-11-24" },
      { summary: "x", start: "next tuesday" },
      { summary: "x", start: "2026-11-25T10:00:00", timeZone: "Mars/Olympus" },
      { summary: "x", start: "2026-11-25", attendees: ["bob"] },
      { summary: "", start: "2026-11-25" },
    ];
    for (const args of cases) {
      const outcome = await h.runner().run({ name: "calendar_create_event", args });
      expect(outcome.error?.code, JSON.stringify(args)).toBe("INVALID_ARGS");
    }
    expect(h.fake.requests).toHaveLength(0);
  });

  it("is not retried after a timeout, and warns it may exist", async () => {
    await h.close();
    const slow = (h = await googleHarness({ timeoutMs: 500 }));
    slow.fake.script.push({ match: "/events", hang: true });
    const outcome = await slow.runner().run({ name: "calendar_create_event", args: { summary: "x", start: "2026-11-25" } });
    expect(outcome.error?.code).toBe("TIMEOUT");
    expect(outcome.content).toMatch(/may or may not have been created/);
    expect(slow.fake.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });
});
