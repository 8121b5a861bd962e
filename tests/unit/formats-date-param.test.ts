import { describe, expect, it } from "vitest";
import { DATETIME_FORMAT_MESSAGE, MAX_INSTANT, MIN_INSTANT, parseDateParam } from "@/lib/formats/date-param";
import { formatRecordLines } from "@/lib/formats/records";
import { makeTimestampFormatter } from "@/lib/formats/timestamp";
import { resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
const zone = (n: string): TimeZone => resolveTimeZone(n)!;
const gmtm1 = zone("Etc/GMT-1");

describe("parseDateParam (formats.md §3.4)", () => {
  it("has the exact 400 message", () => {
    expect(DATETIME_FORMAT_MESSAGE).toBe(
      "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
    );
    expect(JSON.stringify({ start_date: [DATETIME_FORMAT_MESSAGE] })).toBe(
      '{"start_date":["Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."]}',
    );
  });

  it.each([
    ["2014-01-03T08:00", "start", utc(2014, 1, 3, 7)],
    ["2014-01-03 08:00", "start", utc(2014, 1, 3, 7)],
    ["2014-01-03", "start", utc(2014, 1, 2, 23)],
    ["2014-01-03T08:00:00+02:00", "start", utc(2014, 1, 3, 6)],
    ["2014-01-03T08:00:00 02:00", "start", utc(2014, 1, 3, 6)],
    ["2014-01-03T08:00:00.5Z", "start", utc(2014, 1, 3, 8, 0, 1)],
    ["2014-01-03T08:00:00.5Z", "end", utc(2014, 1, 3, 8)],
    ["0001-01-01T00:01:00+00:00", "start", MIN_INSTANT],
    ["3999-01-01T00:01", "end", MAX_INSTANT],
  ] as const)("%s as %s (display zone Etc/GMT-1)", (value, bound, expected) => {
    expect(parseDateParam(value, gmtm1, bound)).toBe(expected);
  });

  it.each(["2014-1-3", "2014", "hello", "2014-02-30", "2014-01", "", "2014-01-03T", "2014-01-03T8:00",
    "2014-01-03T08", "2014-01-03T24:00", "2014-01-03T08:60", "2014-01-03T08:00:60", "2014-01-03T08:00:00.",
    "2014-01-03T08:00:00.5.5", "0000-01-01", "2014-01-03T08:00+2", "2014-01-03T08:00+24:00", "2014-01-03T08:00+02:60",
    "2014-01-03T08:00 -02:00", "2014-01-03X08:00", " 2014-01-03", "2014-01-03 ", "2014-01-03T08:00Z ",
    "2014-01-03T08:00:00.5+", "2014-01-03T08:00+02:", "2013-02-29", "2100-02-29", "２０１４-01-03"])(
    "rejects %j",
    (value) => {
      expect(parseDateParam(value, gmtm1, "start")).toBe("invalid");
    },
  );

  it("accepts the other grammar forms", () => {
    const z = zone("UTC");
    expect(parseDateParam("2014-01-03t08:00z", z, "start")).toBe(utc(2014, 1, 3, 8));
    expect(parseDateParam("2014-01-03T08:00-0230", z, "start")).toBe(utc(2014, 1, 3, 10, 30));
    expect(parseDateParam("2014-01-03T08:00+02", z, "start")).toBe(utc(2014, 1, 3, 6));
    expect(parseDateParam("2014-01-03T08:00:00.000000Z", z, "start")).toBe(utc(2014, 1, 3, 8));
    expect(parseDateParam("2014-01-03T08:00:00.000001", z, "start")).toBe(utc(2014, 1, 3, 8, 0, 1));
    expect(parseDateParam("2014-01-03T08:00:00.999999", z, "end")).toBe(utc(2014, 1, 3, 8));
    expect(parseDateParam("2012-02-29", z, "start")).toBe(utc(2012, 2, 29));
    expect(parseDateParam("2000-02-29", z, "start")).toBe(utc(2000, 2, 29));
    expect(parseDateParam("1969-12-31T23:59:59.5", z, "start")).toBe(0);
    expect(parseDateParam("1969-12-31T23:59:59.5", z, "end")).toBe(-1);
    expect(parseDateParam("9999-12-31T23:59:59", z, "end")).toBe(MAX_INSTANT);
    expect(parseDateParam("1680-01-01T00:00:00Z", z, "start")).toBe(MIN_INSTANT);
    expect(parseDateParam("1680-01-01T00:59:59+01:00", z, "start")).toBe(MIN_INSTANT);
    expect(parseDateParam("2260-01-01T00:00:00Z", z, "end")).toBe(MAX_INSTANT);
  });

  it("reads naive values in the display zone, never the timezone parameter", () => {
    // §2.4: ?timezone=UTC&start_date=2018-12-09T13:20 with display zone Etc/GMT-2
    expect(parseDateParam("2018-12-09T13:20", zone("Etc/GMT-2"), "start")).toBe(utc(2018, 12, 9, 11, 20));
    expect(parseDateParam("2018-12-09", zone("Etc/GMT-2"), "end")).toBe(utc(2018, 12, 8, 22));
    expect(parseDateParam("2018-12-09T11:30:00Z", zone("Etc/GMT-2"), "start")).toBe(utc(2018, 12, 9, 11, 30));
  });

  it("satisfies the client scenario", () => {
    const display = zone("Etc/GMT-2");
    const ts = [1, 2, 3, 4, 5].map((n) => utc(2014, 1, n, 6));
    const vs = [11, 12, 13, 14, 15];
    const s = parseDateParam("2014-01-03T08:00:00+02:00", display, "start") as number;
    const e = parseDateParam("2014-01-04T08:00:00+02:00", display, "end") as number;
    const sel = ts.map((t, i) => i).filter((i) => ts[i] >= s && ts[i] <= e);
    const body = formatRecordLines(
      sel.map((i) => ts[i]), sel.map((i) => vs[i]), sel.map(() => ""), sel.length, 2,
      makeTimestampFormatter(zone("Etc/GMT-1")),
    );
    expect(body).toBe("2014-01-03 07:00,13.00,\r\n2014-01-04 07:00,14.00,\r\n");
  });
});
