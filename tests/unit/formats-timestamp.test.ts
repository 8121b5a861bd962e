import { describe, expect, it } from "vitest";
import {
  civilFromDays,
  daysFromCivil,
  formatInstantWithOffset,
  formatOffset,
  formatUtcSeconds,
  makeTimestampFormatter,
} from "@/lib/formats/timestamp";
import { resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
const zone = (n: string): TimeZone => resolveTimeZone(n)!;

describe("civil arithmetic", () => {
  it("matches Date for many days, including early years", () => {
    for (let z = -800000; z <= 800000; z += 97) {
      const d = new Date(z * 86400000);
      expect(civilFromDays(z)).toEqual([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()]);
      expect(daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())).toBe(z);
    }
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(daysFromCivil(1, 1, 1)).toBe(-719162);
    expect(daysFromCivil(1680, 1, 1) * 86400).toBe(-9151488000);
    expect(daysFromCivil(2260, 1, 1) * 86400).toBe(9151488000);
    expect(civilFromDays(-719162)).toEqual([1, 1, 1]);
  });
});

describe("makeTimestampFormatter (formats.md §2.1)", () => {
  it("writes the §2.4 fixture in the display zone Etc/GMT-2", () => {
    const f = makeTimestampFormatter(zone("Etc/GMT-2"));
    expect(f(utc(2018, 12, 9, 11, 10))).toBe("2018-12-09 13:10");
    expect(f(utc(2018, 12, 9, 11, 20))).toBe("2018-12-09 13:20");
    expect(f(utc(2018, 12, 9, 11, 30))).toBe("2018-12-09 13:30");
    expect(f(utc(2018, 12, 31, 22))).toBe("2019-01-01 00:00");
  });

  it("writes other zones (§2.4)", () => {
    expect(makeTimestampFormatter(zone("UTC"))(utc(2018, 12, 31, 22))).toBe("2018-12-31 22:00");
    expect(makeTimestampFormatter(zone("Etc/GMT-5"))(utc(2018, 12, 31, 22))).toBe("2019-01-01 03:00");
    expect(makeTimestampFormatter(zone("Etc/GMT+5"))(utc(2018, 12, 9, 11, 10))).toBe("2018-12-09 06:10");
    const ny = makeTimestampFormatter(zone("America/New_York"));
    expect(ny(utc(2018, 12, 9, 11, 10))).toBe("2018-12-09 06:10");
    expect(ny(utc(2018, 12, 31, 22))).toBe("2018-12-31 17:00");
  });

  it("prints both records of a repeated hour alike (§2.4 edge case)", () => {
    const f = makeTimestampFormatter(zone("Europe/Athens"));
    expect(f(utc(2020, 10, 25, 0, 30))).toBe("2020-10-25 03:30");
    expect(f(utc(2020, 10, 25, 1, 30))).toBe("2020-10-25 03:30");
  });

  it("truncates seconds, flooring negative epochs", () => {
    const f = makeTimestampFormatter(zone("UTC"));
    expect(f(utc(2018, 12, 9, 13, 10, 59))).toBe("2018-12-09 13:10");
    expect(f(-1)).toBe("1969-12-31 23:59");
    expect(f(-60)).toBe("1969-12-31 23:59");
    expect(f(-61)).toBe("1969-12-31 23:58");
    expect(f(-86400)).toBe("1969-12-31 00:00");
    expect(f(-86401)).toBe("1969-12-30 23:59");
    expect(f(0)).toBe("1970-01-01 00:00");
  });

  it("covers 1680–2260", () => {
    const f = makeTimestampFormatter(zone("UTC"));
    expect(f(-9151488000)).toBe("1680-01-01 00:00");
    expect(f(9151488000)).toBe("2260-01-01 00:00");
    expect(makeTimestampFormatter(zone("Etc/GMT+12"))(-9151488000)).toBe("1679-12-31 12:00");
    expect(makeTimestampFormatter(zone("Etc/GMT-14"))(9151488000)).toBe("2260-01-01 14:00");
    const athens = makeTimestampFormatter(zone("Europe/Athens"));
    expect(athens(-9151488000)).toBe("1680-01-01 01:34");
    expect(athens(9151488000)).toBe("2260-01-01 02:00");
    expect(athens(utc(2250, 7, 1))).toBe("2250-07-01 03:00");
  });

  it("handles going back and forth between days and zones' segments", () => {
    const f = makeTimestampFormatter(zone("Europe/Athens"));
    const ts = [utc(2020, 7, 1), utc(2020, 1, 1), utc(2020, 7, 1, 21), utc(2020, 7, 1), utc(1950, 1, 1)];
    expect(ts.map(f)).toEqual(["2020-07-01 03:00", "2020-01-01 02:00", "2020-07-02 00:00", "2020-07-01 03:00", "1950-01-01 02:00"]);
  });
});

describe("formatInstantWithOffset / formatUtcSeconds", () => {
  it("writes instants with the zone's offset, never Z (§6.5)", () => {
    expect(formatInstantWithOffset(utc(2019, 12, 31, 22), zone("Etc/GMT-2"))).toBe("2020-01-01T00:00:00+02:00");
    expect(formatInstantWithOffset(utc(2019, 12, 31, 22), zone("UTC"))).toBe("2019-12-31T22:00:00+00:00");
    expect(formatInstantWithOffset(utc(2019, 12, 31, 22, 0, 5), zone("Etc/GMT+5"))).toBe("2019-12-31T17:00:05-05:00");
    expect(formatInstantWithOffset(utc(2020, 7, 1), zone("Europe/Athens"))).toBe("2020-07-01T03:00:00+03:00");
    expect(formatInstantWithOffset(utc(1900, 1, 1), zone("Europe/Athens"))).toBe("1900-01-01T01:34:52+01:34:52");
    expect(formatInstantWithOffset(-1, zone("UTC"))).toBe("1969-12-31T23:59:59+00:00");
  });

  it("writes UTC with Z (§6.6)", () => {
    expect(formatUtcSeconds(utc(2014, 1, 1, 6))).toBe("2014-01-01T06:00:00Z");
    expect(formatUtcSeconds(-9151488000)).toBe("1680-01-01T00:00:00Z");
    expect(formatUtcSeconds(9151488000)).toBe("2260-01-01T00:00:00Z");
    expect(formatUtcSeconds(-1)).toBe("1969-12-31T23:59:59Z");
  });

  it("formats offsets", () => {
    expect(formatOffset(0)).toBe("+00:00");
    expect(formatOffset(-19800)).toBe("-05:30");
    expect(formatOffset(5692)).toBe("+01:34:52");
  });
});
