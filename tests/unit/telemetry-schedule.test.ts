import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { dueAfterMinuteOf, isDueMinute, nextDue, scheduleText } from "@/lib/telemetry/schedule";

/** telemetry.md §3: due when the minutes since midnight UTC, modulo the interval, equal the offset. */
const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);

/** The first due minute at or after `ms`, found by walking minute by minute (the definition). */
function walk(ms: number, interval: number, offset: number): number {
  for (let m = Math.ceil(ms / MINUTE); ; m++) {
    const ofDay = ((m % 1440) + 1440) % 1440;
    if (isDueMinute(ofDay, interval, offset)) return m * MINUTE;
  }
}

describe("the schedule", () => {
  it("is the reference's is_due: every 10 minutes at :02, every day at 02:05, an interval that does not divide a day starting again at midnight", () => {
    expect(new Date(nextDue(at("2025-03-01T10:00:30Z"), 10, 2)).toISOString()).toBe("2025-03-01T10:02:00.000Z");
    expect(new Date(nextDue(at("2025-03-01T10:02:00Z"), 10, 2)).toISOString()).toBe("2025-03-01T10:02:00.000Z");
    expect(new Date(nextDue(at("2025-03-01T10:02:00.001Z"), 10, 2)).toISOString()).toBe("2025-03-01T10:12:00.000Z");
    expect(new Date(nextDue(at("2025-03-01T02:06:00Z"), 1440, 125)).toISOString()).toBe("2025-03-02T02:05:00.000Z");
    // 1438 % 7 = 3: 23:58 is due, then 00:03 (1440 is the next day's 0).
    expect(new Date(nextDue(at("2025-03-01T23:56:00Z"), 7, 3)).toISOString()).toBe("2025-03-01T23:58:00.000Z");
    expect(new Date(nextDue(at("2025-03-01T23:58:30Z"), 7, 3)).toISOString()).toBe("2025-03-02T00:03:00.000Z");
    expect(new Date(dueAfterMinuteOf(at("2025-03-01T10:02:59Z"), 10, 2)).toISOString()).toBe("2025-03-01T10:12:00.000Z");
  });

  it("agrees with walking minute by minute", () => {
    fc.assert(fc.property(
      fc.integer({ min: 10, max: 1440 }).chain((interval) => fc.tuple(fc.constant(interval), fc.integer({ min: 0, max: interval - 1 }))),
      fc.integer({ min: 0, max: 4_000_000_000_000 }),
      ([interval, offset], ms) => {
        expect(nextDue(ms, interval, offset)).toBe(walk(ms, interval, offset));
        expect(dueAfterMinuteOf(ms, interval, offset)).toBe(walk((Math.floor(ms / MINUTE) + 1) * MINUTE, interval, offset));
      },
    ), { numRuns: 2000 });
  });

  it("says itself in words", () => {
    expect(scheduleText(10, 2)).toBe("every 10 minutes, at minute 2 of each 10-minute slot from midnight UTC");
    expect(scheduleText(60, 5)).toBe("every hour from 00:05 UTC");
    expect(scheduleText(1440, 125)).toBe("every day at 02:05 UTC");
  });
});
