import { describe, expect, it } from "vitest";
import { commentLines, htsHeader, singleLine, type HtsMeta } from "@/lib/formats/hts";
import { formatRecordLines } from "@/lib/formats/records";
import { makeTimestampFormatter } from "@/lib/formats/timestamp";
import { resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
const zone = (n: string): TimeZone => resolveTimeZone(n)!;

const TS = [utc(2018, 12, 9, 11, 10), utc(2018, 12, 9, 11, 20), utc(2018, 12, 9, 11, 30), utc(2018, 12, 31, 22)];
const VS = [20.456, null, 21, -3.125];
const FL = ["", "MISS", "FLAG1 FLAG2", ""];

function meta(over: Partial<HtsMeta> = {}): HtsMeta {
  return {
    count: 4,
    groupName: "",
    variableDescr: "Temperature",
    stationName: "Komboti",
    groupRemarks: "Line1\nLine2",
    zone: zone("Etc/GMT-2"),
    timeStep: "10min",
    precision: 2,
    lon: 21.06071,
    lat: 39.09518,
    altitude: 219,
    ...over,
  };
}

function file(version: 1 | 2, m: HtsMeta, from = 0): string {
  const n = TS.length - from;
  return htsHeader(version, { ...m, count: n }) +
    formatRecordLines(TS.slice(from), VS.slice(from), FL.slice(from), n, m.precision, makeTimestampFormatter(m.zone));
}

describe("HTS (formats.md §5.5)", () => {
  it("GET TS12/data/?fmt=hts, byte for byte", () => {
    const expected = [
      "Count=4", "Title=Temperature", "Comment=Komboti", "Comment=", "Comment=Line1", "Comment=Line2",
      "Timezone=Etc/GMT-2 (UTC+0200)", "Time_step=10,0", "Variable=Temperature", "Precision=2",
      "Location=21.060710 39.095180 4326", "Altitude=219.00", "",
      "2018-12-09 13:10,20.46,", "2018-12-09 13:20,,MISS", "2018-12-09 13:30,21.00,FLAG1 FLAG2", "2019-01-01 00:00,-3.12,", "",
    ].join("\r\n");
    const b = file(1, meta());
    expect(b).toBe(expected);
    expect(b.startsWith("Count=4\r\nTitle=Temperature\r\n")).toBe(true);
    expect(b).toContain("Altitude=219.00\r\n\r\n2018-12-09 13:10,20.46,\r\n");
  });

  it("GET TS12/data/?fmt=hts2&timezone=UTC&start_date=2019-01-01", () => {
    const expected = [
      "Version=2", "Count=1", "Title=Temperature", "Comment=Komboti", "Comment=", "Comment=Line1", "Comment=Line2",
      "Timezone=UTC (UTC+0000)", "Time_step=10,0", "Variable=Temperature", "Precision=2", "",
      "2018-12-31 22:00,-3.12,", "",
    ].join("\r\n");
    expect(file(2, meta({ zone: zone("UTC") }), 3)).toBe(expected);
  });

  it("an empty series: Count=0 and the body ends with the empty line", () => {
    const b = htsHeader(1, meta({ count: 0 }));
    expect(b.startsWith("Count=0\r\n")).toBe(true);
    expect(b.endsWith("Altitude=219.00\r\n\r\n")).toBe(true);
  });

  it("?fmt=hts&timezone=Etc/GMT+5", () => {
    const b = file(1, meta({ zone: zone("Etc/GMT+5") }));
    expect(b).toContain("\r\nTimezone=Etc/GMT+5 (UTC-0500)\r\n");
    expect(b).toContain("\r\n\r\n2018-12-09 06:10,20.46,\r\n");
  });

  it("echoes the zone name as sent", () => {
    expect(htsHeader(1, meta({ zone: zone("etc/gmt") }))).toContain("\r\nTimezone=etc/gmt (UTC+0000)\r\n");
    expect(htsHeader(1, meta({ zone: zone("Etc/GMT") }))).toContain("\r\nTimezone=Etc/GMT (UTC+0000)\r\n");
  });

  it("refuses a zone without a fixed offset", () => {
    expect(() => htsHeader(1, meta({ zone: zone("Europe/Athens") }))).toThrow();
  });

  it("time steps and altitude", () => {
    expect(htsHeader(1, meta({ timeStep: "" }))).not.toContain("Time_step");
    expect(htsHeader(1, meta({ timeStep: "2H" }))).toContain("\r\nTime_step=120,0\r\n");
    expect(htsHeader(1, meta({ timeStep: "M" }))).toContain("\r\nTime_step=0,1\r\n");
    const noAlt = htsHeader(1, meta({ altitude: null }));
    expect(noAlt).not.toContain("Altitude");
    expect(noAlt.endsWith("Location=21.060710 39.095180 4326\r\n\r\n")).toBe(true);
    expect(htsHeader(1, meta({ altitude: 0 }))).toContain("\r\nAltitude=0.00\r\n");
    expect(htsHeader(1, meta({ lon: -0.127758, lat: 51.507351 }))).toContain("\r\nLocation=-0.127758 51.507351 4326\r\n");
    expect(htsHeader(1, meta({ lon: null, lat: null }))).not.toContain("Location");
    expect(htsHeader(1, meta({ precision: -1 }))).toContain("\r\nPrecision=-1\r\n");
  });

  it("hts2 has neither Location nor Altitude", () => {
    const b = htsHeader(2, meta());
    expect(b).not.toContain("Location");
    expect(b).not.toContain("Altitude");
    expect(b.endsWith("Precision=2\r\n\r\n")).toBe(true);
  });

  it("uses the group name as title when it is not empty", () => {
    expect(htsHeader(1, meta({ groupName: "Air temp" }))).toContain("\r\nTitle=Air temp\r\nComment=");
    expect(htsHeader(1, meta({ groupName: "", variableDescr: "" }))).toContain("\r\nTitle=\r\n");
  });
});

describe("HTS header value rules (formats.md §5.4)", () => {
  it("comment lines", () => {
    expect(commentLines("Komboti", "")).toEqual(["Komboti", ""]);
    expect(commentLines("Komboti", "Line1\nLine2")).toEqual(["Komboti", "", "Line1", "Line2"]);
    expect(commentLines("Komboti", "a\n\nb\n")).toEqual(["Komboti", "", "a", "", "b"]);
    expect(commentLines("K", "a\r\nb\rc\r\n")).toEqual(["K", "", "a", "b", "c"]);
    expect(htsHeader(1, meta({ groupRemarks: "" }))).toContain("Comment=Komboti\r\nComment=\r\nTimezone=");
    expect(htsHeader(1, meta({ groupRemarks: "a\n\nb\n" }))).toContain(
      "Comment=Komboti\r\nComment=\r\nComment=a\r\nComment=\r\nComment=b\r\nTimezone=",
    );
  });

  it("single-line values replace CR and LF by spaces and keep trailing spaces", () => {
    expect(singleLine("a\nb")).toBe("a b");
    expect(singleLine("a\rb ")).toBe("a b ");
    expect(singleLine("a\r\nb")).toBe("a  b");
    expect(htsHeader(1, meta({ groupName: "T\nx ", variableDescr: "V\rw" }))).toContain("\r\nTitle=T x \r\n");
    expect(htsHeader(1, meta({ variableDescr: "V\rw" }))).toContain("\r\nVariable=V w\r\n");
  });
});
