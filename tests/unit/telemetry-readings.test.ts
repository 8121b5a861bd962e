import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveTimeZone } from "@/lib/formats/timezone";
import type { Reading, ReadingBatch } from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";
import {
  formatNaive,
  instantsOf,
  instantsOfLocal,
  localSecondsOf,
  naiveSeconds,
  parseReadingValue,
  readingsToRecords,
} from "@/lib/telemetry/readings";

const ATHENS = resolveTimeZone("Europe/Athens")!;
const UTC = resolveTimeZone("UTC")!;

/** Naive seconds of "YYYY-MM-DD HH:MM[:SS]". */
function naive(text: string): number {
  const [d, t] = text.split(" ");
  const [y, mo, day] = d.split("-").map(Number);
  const [h, mi, s = 0] = t.split(":").map(Number);
  return naiveSeconds(y, mo, day, h, mi, s);
}

/** "YYYY-MM-DDTHH:MM:SSZ" of an instant. */
const iso = (t: number) => `${formatNaive(t)}Z`;

function local(...times: string[]): ReadingBatch {
  return { clock: "local", readings: times.map((t, i): Reading => ({ time: naive(t), value: i, flags: "" })) };
}

function utc(...readings: [string, number | null, string?][]): ReadingBatch {
  return { clock: "utc", readings: readings.map(([t, value, flags = ""]) => ({ time: naive(t), value, flags })) };
}

describe("local timestamps in a zone with DST", () => {
  it("reads the hour before the clock is set back as the reference does (htimeseries' test)", () => {
    const batch = local("2023-10-29 02:30", "2023-10-29 03:00", "2023-10-29 03:30", "2023-10-29 04:00", "2023-10-29 04:30");
    expect([...instantsOf(batch, ATHENS, null)].map(iso)).toEqual([
      "2023-10-28T23:30:00Z", "2023-10-29T00:00:00Z", "2023-10-29T00:30:00Z", "2023-10-29T02:00:00Z", "2023-10-29T02:30:00Z",
    ]);
  });

  it("takes the second occurrence of the repeated hour as after the switch", () => {
    const batch = local("2023-10-29 03:00", "2023-10-29 03:30", "2023-10-29 03:00", "2023-10-29 03:30", "2023-10-29 04:00");
    expect([...instantsOf(batch, ATHENS, null)].map(iso)).toEqual([
      "2023-10-29T00:00:00Z", "2023-10-29T00:30:00Z", "2023-10-29T01:00:00Z", "2023-10-29T01:30:00Z", "2023-10-29T02:00:00Z",
    ]);
    // Hourly data: the same local time twice in a row.
    expect([...instantsOf(local("2023-10-29 02:00", "2023-10-29 03:00", "2023-10-29 03:00", "2023-10-29 04:00"), ATHENS, null)].map(iso))
      .toEqual(["2023-10-28T23:00:00Z", "2023-10-29T00:00:00Z", "2023-10-29T01:00:00Z", "2023-10-29T02:00:00Z"]);
  });

  it("uses the series' last record when the repeated hour starts a fetch", () => {
    const lastStored = Date.UTC(2023, 9, 29, 0, 50) / 1000; // 03:50 before the switch
    const { records } = readingsToRecords(local("2023-10-29 03:00", "2023-10-29 03:10"), ATHENS, lastStored);
    expect([...records.timestamps].map(iso)).toEqual(["2023-10-29T01:00:00Z", "2023-10-29T01:10:00Z"]);
    // Before the switch has happened, the repeated hour is the first occurrence.
    const early = readingsToRecords(local("2023-10-29 03:20"), ATHENS, Date.UTC(2023, 9, 29, 0, 10) / 1000);
    expect([...early.records.timestamps].map(iso)).toEqual(["2023-10-29T00:20:00Z"]);
  });

  it("reads the hour after the clock is set forward", () => {
    expect([...instantsOf(local("2024-03-31 02:50", "2024-03-31 04:00", "2024-03-31 04:10"), ATHENS, null)].map(iso))
      .toEqual(["2024-03-31T00:50:00Z", "2024-03-31T01:00:00Z", "2024-03-31T01:10:00Z"]);
  });

  it("refuses a local time that does not exist, naming it", () => {
    expect(() => readingsToRecords(local("2024-03-31 02:50", "2024-03-31 03:30"), ATHENS, null)).toThrow(new TelemetryError(
      "the reading at 2024-03-31 03:30:00 does not exist in Europe/Athens (the clock was set forward then): the logger does not keep " +
        "this zone's daylight saving time; set the time zone of the data to one with a fixed offset, such as Etc/GMT-2",
    ));
  });

  it("finds both instants of a repeated time in other zones (a 30-minute change, America)", () => {
    const lordHowe = resolveTimeZone("Australia/Lord_Howe")!;
    expect(instantsOfLocal(naive("2023-04-02 01:45"), lordHowe).map(iso)).toEqual(["2023-04-01T14:45:00Z", "2023-04-01T15:15:00Z"]);
    expect(instantsOfLocal(naive("2023-04-02 02:15"), lordHowe).map(iso)).toEqual(["2023-04-01T15:45:00Z"]);
    const newYork = resolveTimeZone("America/New_York")!;
    expect(instantsOfLocal(naive("2023-11-05 01:30"), newYork).map(iso)).toEqual(["2023-11-05T05:30:00Z", "2023-11-05T06:30:00Z"]);
    expect(instantsOfLocal(naive("2023-03-12 02:30"), newYork)).toEqual([]);
    expect(instantsOfLocal(naive("2023-06-01 12:00"), resolveTimeZone("Etc/GMT-2")!).map(iso)).toEqual(["2023-06-01T10:00:00Z"]);
  });

  it("gives back the instants of any increasing sequence that starts before the switch, in steps shorter than the hour repeated", () => {
    const switchBack = Date.UTC(2023, 9, 29, 1) / 1000;
    fc.assert(fc.property(
      fc.integer({ min: -6 * 3600, max: -1 }),
      fc.array(fc.integer({ min: 1, max: 3599 }), { maxLength: 40 }),
      (offset, steps) => {
        let t = switchBack + offset;
        const instants = [t];
        for (const step of steps) instants.push((t += step));
        const batch: ReadingBatch = { clock: "local", readings: instants.map((i) => ({ time: localSecondsOf(i, ATHENS), value: 1, flags: "" })) };
        expect([...instantsOf(batch, ATHENS, null)]).toEqual(instants);
      },
    ), { numRuns: 500 });
  });
});

describe("readings to records", () => {
  it("keeps the first reading of each minute (the reference's MeteoView2 case)", () => {
    const { records, sameMinute } = readingsToRecords(utc(["2021-12-14 08:10:07", 1.42], ["2021-12-14 08:10:37", 1.47], ["2021-12-14 08:20", 1.43]), UTC, null);
    expect([...records.timestamps].map(iso)).toEqual(["2021-12-14T08:10:07Z", "2021-12-14T08:20:00Z"]);
    expect([...records.values]).toEqual([1.42, 1.43]);
    expect(sameMinute).toBe(1);
  });

  it("drops readings at or before the last record, and in its minute", () => {
    const lastStored = naive("2022-06-14 08:00:30");
    const batch = utc(["2022-06-14 07:50", 1], ["2022-06-14 08:00", 2], ["2022-06-14 08:00:45", 3], ["2022-06-14 08:10", 4]);
    const { records, notAfterLast } = readingsToRecords(batch, UTC, lastStored);
    expect([...records.timestamps].map(iso)).toEqual(["2022-06-14T08:10:00Z"]);
    expect([...records.values]).toEqual([4]);
    expect(notAfterLast).toBe(3);
  });

  it("sorts readings out of order, the vendor's first of an instant winning", () => {
    const batch = utc(["2022-01-01 00:20", 3], ["2022-01-01 00:10", 1], ["2022-01-01 00:10", 2], ["2022-01-01 00:00", 0]);
    const { records } = readingsToRecords(batch, UTC, null);
    expect([...records.timestamps].map(iso)).toEqual(["2022-01-01T00:00:00Z", "2022-01-01T00:10:00Z", "2022-01-01T00:20:00Z"]);
    expect([...records.values]).toEqual([0, 1, 3]);
  });

  it("converts local readings with the zone, and leaves UTC ones alone", () => {
    const winter = readingsToRecords(local("2022-01-10 10:00"), ATHENS, null);
    expect([...winter.records.timestamps].map(iso)).toEqual(["2022-01-10T08:00:00Z"]);
    const asUtc = readingsToRecords(utc(["2022-01-10 10:00", 1]), ATHENS, null);
    expect([...asUtc.records.timestamps].map(iso)).toEqual(["2022-01-10T10:00:00Z"]);
  });

  it("stores missing values as NaN, -0 as 0, and flags as single-spaced words", () => {
    const { records } = readingsToRecords(utc(["2022-01-01 00:00", null, " MISSING "], ["2022-01-01 00:10", -0, "A \t B"], ["2022-01-01 00:20", NaN]), UTC, null);
    expect(Number.isNaN(records.values[0])).toBe(true);
    expect(Object.is(records.values[1], 0)).toBe(true);
    expect(Number.isNaN(records.values[2])).toBe(true);
    expect(records.flags).toEqual(["MISSING", "A B", ""]);
  });

  it("refuses a batch with a reading outside the years 1–9999, in any clock, and keeps the edges", () => {
    const at = (time: number, clock: "utc" | "local" = "utc"): ReadingBatch => ({ clock, readings: [{ time: 0, value: 1, flags: "" }, { time, value: 2, flags: "" }] });
    for (const batch of [at(253_402_300_800), at(-62_135_596_801), at(1_796_112_000_000), at(253_402_300_800, "local")]) {
      expect(() => readingsToRecords(batch, UTC, null)).toThrow(new TelemetryError("reading 2 of the answer is outside the years 1–9999: the vendor's clock, or the unit of its times, is wrong"));
    }
    // Even when the reading is before the series' last record, it names a vendor at fault.
    expect(() => readingsToRecords(at(-62_135_596_801), UTC, 100)).toThrow(TelemetryError);
    const edges = readingsToRecords({ clock: "utc", readings: [{ time: -62_135_596_800, value: 1, flags: "" }, { time: 253_402_300_799, value: 2, flags: "" }] }, UTC, null);
    expect([...edges.records.timestamps]).toEqual([-62_135_596_800, 253_402_300_799]);
  });

  it("gives nothing for nothing", () => {
    const { records, sameMinute, notAfterLast } = readingsToRecords({ clock: "local", readings: [] }, ATHENS, 0);
    expect(records.timestamps.length).toBe(0);
    expect([sameMinute, notAfterLast]).toEqual([0, 0]);
  });
});

describe("reading values", () => {
  it.each([
    ["1.42", 1.42], [" -3 ", -3], ["+2.5e3", 2500], [".5", 0.5], ["7.", 7], ["", null], ["NaN", null], ["nan", null], [null, null],
    [12, 12], [NaN, null], ["-0", 0],
  ] as const)("%j is %j", (text, value) => {
    expect(parseReadingValue(text)).toBe(value);
  });

  it.each(["abc", "1,5", "Infinity", "1e999", "0x10", "1.2.3", "--1"])("%j is not a number", (text) => {
    expect(parseReadingValue(text)).toBeUndefined();
  });
});
