import { describe, expect, it } from "vitest";
import { addMinutesWallClock, nextDay, parseCalendarTime, rangeBound } from "../../../src/tools/google/calendar-time.js";

describe("calendar-time", () => {
  it("parses days and date-times, with and without zones", () => {
    expect(parseCalendarTime("2026-11-25")).toEqual({ kind: "date", date: "2026-11-25" });
    expect(parseCalendarTime("2026-11-25T09:30")).toEqual({ kind: "dateTime", text: "2026-11-25T09:30:00", zoned: false });
    expect(parseCalendarTime("2026-11-25 09:30:15Z")).toEqual({ kind: "dateTime", text: "2026-11-25T09:30:15Z", zoned: true });
    expect(parseCalendarTime("2026-11-25T09:30:00+0530")).toEqual({ kind: "dateTime", text: "2026-11-25T09:30:00+05:30", zoned: true });
    for (const bad of ["2026-02-29", "2026-13-01", "2026-11-25T24:00", "tomorrow", "25/11/2026", ""])
      expect(parseCalendarTime(bad)).toBeUndefined();
  });

  it("counts days across month and year ends", () => {
    expect(nextDay("2026-12-31")).toBe("2027-01-01");
    expect(nextDay("2028-02-28")).toBe("2028-02-29");
    expect(nextDay("2026-03-01", -1)).toBe("2026-02-28");
    expect(addMinutesWallClock("2026-12-31T23:30:00", 60)).toBe("2027-01-01T00:30:00");
  });

  it("makes a day an inclusive range of local midnights", () => {
    const day = parseCalendarTime("2026-11-25")!;
    expect(rangeBound(day, "min")).toBe(new Date(2026, 10, 25).toISOString());
    expect(rangeBound(day, "max")).toBe(new Date(2026, 10, 26).toISOString());
    expect(rangeBound(parseCalendarTime("2026-11-25T10:00:00+01:00")!, "min")).toBe("2026-11-25T10:00:00+01:00");
  });
});
