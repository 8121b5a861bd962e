import { describe, expect, it } from "vitest";
import { formatRecordLines } from "@/lib/formats/records";
import { makeTimestampFormatter } from "@/lib/formats/timestamp";
import { resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";
import {
  appendErrors,
  dryRunSummary,
  insertErrors,
  parseHtsTimezone,
  parseUpload,
  type UploadParsed,
  type UploadParseResult,
} from "@/lib/formats/upload";

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
const zone = (n: string): TimeZone => resolveTimeZone(n)!;
const display = zone("Etc/GMT-2");

function ok(r: UploadParseResult): UploadParsed {
  if (!r.ok) throw new Error(`parse failed: ${JSON.stringify(r.errors)}`);
  return r;
}

function errors(r: UploadParseResult): string[] {
  if (r.ok) throw new Error("parse succeeded");
  return r.errors;
}

function csv(p: UploadParsed, zoneName: string, precision: number): string {
  return formatRecordLines(p.timestamps, p.values, p.flags, p.timestamps.length, precision,
    makeTimestampFormatter(zone(zoneName)));
}

describe("formats.md §6.7 worked examples", () => {
  it("U1: the Python client's upload", () => {
    const text = "2014-01-01 06:00:00+00:00,11.0,\n2014-01-02 06:00:00+00:00,12.0,\n2014-01-03 06:00:00+00:00,13.0,\n";
    const p = ok(parseUpload(text, zone("UTC")));
    expect(Array.from(p.timestamps)).toEqual([utc(2014, 1, 1, 6), utc(2014, 1, 2, 6), utc(2014, 1, 3, 6)]);
    expect(Array.from(p.lines)).toEqual([1, 2, 3]);
    expect(csv(p, "Etc/GMT-1", 2)).toBe("2014-01-01 07:00,11.00,\r\n2014-01-02 07:00,12.00,\r\n2014-01-03 07:00,13.00,\r\n");
    expect(JSON.stringify(dryRunSummary(p))).toBe(
      '{"count":3,"start_date":"2014-01-01T06:00:00Z","end_date":"2014-01-03T06:00:00Z"}',
    );
    expect(appendErrors(p, null)).toEqual([]);
  });

  it("U2: mixed forms, CR LF", () => {
    const text = [
      "2020-01-01T00:00,1.5,",
      "2020-01-01 00:10:00,2,FLAG1  FLAG2",
      "2020-01-01 00:20+02:00,nan,MISS",
      "2020-01-01T00:30Z,,",
      "2020-01-02,1e3",
      "",
      "2020-01-01 00:25:30, -0.5 ,",
      "",
    ].join("\r\n");
    const p = ok(parseUpload(text, display));
    expect(JSON.stringify(dryRunSummary(p))).toBe(
      '{"count":6,"start_date":"2019-12-31T22:00:00Z","end_date":"2020-01-01T22:00:00Z"}',
    );
    expect(csv(p, "Etc/GMT-2", 1)).toBe(
      [
        "2020-01-01 00:00,1.5,",
        "2020-01-01 00:10,2.0,FLAG1 FLAG2",
        "2020-01-01 00:20,,MISS",
        "2020-01-01 00:25,-0.5,",
        "2020-01-01 02:30,,",
        "2020-01-02 00:00,1000.0,",
        "",
      ].join("\r\n"),
    );
    expect(Array.from(p.lines)).toEqual([1, 2, 3, 7, 4, 5]);
    expect(p.flags).toEqual(["", "FLAG1 FLAG2", "MISS", "", "", ""]);
    expect(p.timestamps[3]).toBe(utc(2019, 12, 31, 22, 25, 30));
    expect(p.zone).toBe(display);
  });

  it("U3: syntax errors", () => {
    const text = [
      "2020-01-01 00:00,1,",
      "2020-13-01 00:00,2,",
      "2020-01-01 00:10,abc,",
      "2020-01-01 00:20,3,A,B",
      "2020-01-01 00:00,4,",
      "2020-01-01 00:30,inf,",
      "2020-01-01 00:40",
      "1500-01-01,1,",
      '2020-01-01 00:50,1,"X"',
    ].join("\n");
    const errs = errors(parseUpload(text, display));
    expect(JSON.stringify({ timeseries_records: errs })).toBe(
      '{"timeseries_records":[' +
        '"line 2: invalid timestamp \\"2020-13-01 00:00\\"",' +
        '"line 3: invalid value \\"abc\\"",' +
        '"line 4: expected 2 or 3 fields, found 4",' +
        '"line 5: timestamp 2020-01-01T00:00:00+02:00 also appears on line 1",' +
        '"line 6: invalid value \\"inf\\"",' +
        '"line 7: expected 2 or 3 fields, found 1",' +
        '"line 8: timestamp \\"1500-01-01\\" is outside 1680-01-01 to 2260-01-01",' +
        '"line 9: invalid character in flags"]}',
    );
  });

  describe("U4: append and insert against stored records", () => {
    const stored = [utc(2019, 12, 31, 22), utc(2019, 12, 31, 22, 10)];
    const last = stored[1];
    const body1 = "2020-01-01 00:10,5,\n2020-01-01 00:20,6,\n";
    const body2 = "2020-01-01 00:05,5,\n";

    it("append, overlapping", () => {
      const p = ok(parseUpload(body1, display));
      expect(appendErrors(p, last)).toEqual([
        "line 1: 2020-01-01T00:10:00+02:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)",
      ]);
    });

    it("insert, existing instant", () => {
      const p = ok(parseUpload(body1, display));
      expect(insertErrors(p, stored)).toEqual(["line 1: a record at 2020-01-01T00:10:00+02:00 already exists"]);
      expect(insertErrors(p, (epochs) => Array.from(epochs).filter((t) => stored.includes(t)))).toEqual([
        "line 1: a record at 2020-01-01T00:10:00+02:00 already exists",
      ]);
    });

    it("insert between", () => {
      const p = ok(parseUpload(body2, display));
      expect(insertErrors(p, stored)).toEqual([]);
      expect(insertErrors(p, new Set(stored))).toEqual([]);
    });

    it("append before the end", () => {
      const p = ok(parseUpload(body2, display));
      expect(appendErrors(p, last)).toEqual([
        "line 1: 2020-01-01T00:05:00+02:00 is not later than the last stored record (2020-01-01T00:10:00+02:00)",
      ]);
    });
  });

  it("U5: an HTS header zone overrides timezone=UTC", () => {
    const text = "Count=2\nTimezone=EET (UTC+0300)\nUnit=°C\n\n2020-01-09 00:00,5,\n2020-01-09 00:10,6,\n";
    const p = ok(parseUpload(text, zone("UTC")));
    expect(Array.from(p.timestamps)).toEqual([utc(2020, 1, 8, 21), utc(2020, 1, 8, 21, 10)]);
    expect(p.zone.fixedOffsetMinutes).toBe(180);
    expect(dryRunSummary(p)).toEqual({ count: 2, start_date: "2020-01-08T21:00:00Z", end_date: "2020-01-08T21:10:00Z" });
    expect(Array.from(p.lines)).toEqual([5, 6]);
  });

  it("U6: bad header", () => {
    const text = "Title=Test\nTimezone=Mars/Olympus\nNo equals sign here\n";
    expect(errors(parseUpload(text, display))).toEqual([
      'line 2: invalid Timezone "Mars/Olympus"',
      'line 3: invalid header line "No equals sign here"',
      "line 3: the header must be followed by a blank line",
    ]);
  });

  it("U7: DST with timezone=Europe/Athens", () => {
    const athens = zone("Europe/Athens");
    const p = ok(parseUpload("2020-10-25 03:30,1,\n", athens));
    expect(Array.from(p.timestamps)).toEqual([utc(2020, 10, 25, 0, 30)]);
    expect(errors(parseUpload("2020-10-25 03:30,1,\n2020-03-29 03:30,2,\n", athens))).toEqual([
      'line 2: "2020-03-29 03:30" does not exist in time zone Europe/Athens',
    ]);
  });

  it.each(["", "\n", "\r\n\r\n", "   \n\t\n", "\ufeff", "\ufeff\n  \n"])("U8: empty upload %j", (text) => {
    const p = ok(parseUpload(text, display));
    expect(p.timestamps.length).toBe(0);
    expect(JSON.stringify(dryRunSummary(p))).toBe('{"count":0,"start_date":null,"end_date":null}');
    expect(appendErrors(p, 0)).toEqual([]);
    expect(insertErrors(p, [0])).toEqual([]);
  });

  it("U9: duplicates written differently", () => {
    expect(errors(parseUpload("2020-01-01 00:00+02:00,1,\n2019-12-31T22:00Z,2,\n", zone("UTC")))).toEqual([
      "line 2: timestamp 2019-12-31T22:00:00+00:00 also appears on line 1",
    ]);
  });
});

describe("upload body rules (§6.2)", () => {
  it("removes a BOM and accepts LF, CR LF and CR CR LF", () => {
    for (const eol of ["\n", "\r\n", "\r\r\n"]) {
      const p = ok(parseUpload(`\ufeff2020-01-01 00:00,1,${eol}2020-01-01 00:10,2,A${eol}`, display));
      expect(Array.from(p.values)).toEqual([1, 2]);
      expect(p.flags).toEqual(["", "A"]);
    }
    const p = ok(parseUpload("2020-01-01 00:00,1,\n2020-01-01 00:10,2,", display));
    expect(p.timestamps.length).toBe(2);
  });

  it("counts every piece as a line, blank ones included", () => {
    const r = parseUpload("\n\n2020-01-01 00:00,1,\n  \n2020-01-01 00:10,x,\n", display);
    expect(errors(r)).toEqual(['line 5: invalid value "x"']);
  });

  it("requires the blank line after the header, and only skips blank lines elsewhere", () => {
    expect(errors(parseUpload("Title=x\n2020-01-01 00:00,1,\n", display))).toEqual([
      'line 2: invalid header line "2020-01-01 00:00,1,"',
      "line 2: the header must be followed by a blank line",
    ]);
    const p = ok(parseUpload("\n  Title = x \nversion=2\nCount=\n\n\n2020-01-01 00:00,1,\n", display));
    expect(Array.from(p.lines)).toEqual([7]);
    expect(errors(parseUpload("Title\n\n", display))).toEqual(['line 1: invalid header line "Title"']);
    expect(errors(parseUpload("1Title=x\n", display))).toEqual(["line 1: expected 2 or 3 fields, found 1"]);
    expect(errors(parseUpload("_a=b\n\n", display))).toEqual(['line 1: invalid header line "_a=b"']);
    // a header-only file (empty series)
    expect(ok(parseUpload("Count=0\r\nTimezone=Etc/GMT-2 (UTC+0200)\r\n\r\n", display)).timestamps.length).toBe(0);
  });

  it("reads every Timezone form (§5.6)", () => {
    const cases: [string, number][] = [
      ["EET (UTC+0300)", 180],
      ["(+0300)", 180],
      ["whatever (-0130)", -90],
      ["UTC+0300", 180],
      ["utc-0500", -300],
      ["+0300", 180],
      ["-0000", 0],
      ["Etc/GMT-2", 120],
      ["Etc/GMT-2 (UTC+0200)", 120],
    ];
    for (const [value, minutes] of cases) {
      const p = ok(parseUpload(`Timezone=${value}\n\n2020-01-01 00:00,1,\n`, zone("UTC")));
      expect(p.timestamps[0], value).toBe(utc(2020, 1, 1) - minutes * 60);
    }
    expect(parseHtsTimezone("Europe/Athens")?.fixedOffsetMinutes).toBeNull();
    expect(parseHtsTimezone("UTC+3")).toBeNull();
    expect(parseHtsTimezone("(UTC+0300) x")).toBeNull();
    expect(parseHtsTimezone("UTC+2500")).toBeNull();
    // a bare DST zone works for naive timestamps
    const p = ok(parseUpload("timezone = Europe/Athens\n\n2020-07-01 03:00,1,\n", zone("UTC")));
    expect(p.timestamps[0]).toBe(utc(2020, 7, 1));
    expect(p.zone.name).toBe("Europe/Athens");
    // empty value = absent; the last one counts
    const q = ok(parseUpload("Timezone=+0100\nTimezone=\n\n2020-01-01 00:00,1,\n", zone("UTC")));
    expect(q.timestamps[0]).toBe(utc(2019, 12, 31, 23));
    const r = ok(parseUpload("Timezone=+0100\nTimezone=-0100\n\n2020-01-01 00:00,1,\n", zone("UTC")));
    expect(r.timestamps[0]).toBe(utc(2020, 1, 1, 1));
    expect(errors(parseUpload("Timezone=UTC+3\n\n2020-01-01 00:00,1,\n", zone("UTC")))).toEqual([
      'line 1: invalid Timezone "UTC+3"',
    ]);
  });

  it("uses the upload zone in duplicate messages", () => {
    const text = "Timezone=+0300\n\n2020-01-01 00:00,1,\n2020-01-01 00:00,2,\n2020-01-01 00:00,3,\n";
    expect(errors(parseUpload(text, zone("UTC")))).toEqual([
      "line 4: timestamp 2020-01-01T00:00:00+03:00 also appears on line 3",
      "line 5: timestamp 2020-01-01T00:00:00+03:00 also appears on line 3",
    ]);
  });
});

describe("record line grammar (§6.3)", () => {
  const one = (line: string, z: TimeZone = display) => parseUpload(line + "\n", z);

  it("reads timestamps", () => {
    const t0 = utc(2019, 12, 31, 22);
    const cases: [string, number][] = [
      ["2020-01-01", t0],
      ["2020-01-01 00:00", t0],
      ["2020-01-01T00:00", t0],
      ["2020-01-01t00:00:00", t0],
      ["2020-01-01 00:00Z", utc(2020, 1, 1)],
      ["2020-01-01 00:00z", utc(2020, 1, 1)],
      ["2020-01-01 00:00+01", utc(2019, 12, 31, 23)],
      ["2020-01-01 00:00+0130", utc(2019, 12, 31, 22, 30)],
      ["2020-01-01 00:00:59-01:30", utc(2020, 1, 1, 1, 30, 59)],
      ["  2020-01-01 00:00  ", t0],
      ["1680-01-01 02:00", utc(1680, 1, 1)],
      ["2260-01-01 02:00", utc(2260, 1, 1)],
      ["2260-01-01T00:00Z", utc(2260, 1, 1)],
      ["2016-02-29", utc(2016, 2, 28, 22)],
    ];
    for (const [ts, t] of cases) {
      const p = ok(one(`${ts},1`));
      expect(p.timestamps[0], ts).toBe(t);
    }
  });

  it("rejects bad timestamps", () => {
    for (const ts of ["2020-1-01", "2020-01-01  00:00", "2020-01-01T00:00:00.5", "2020-02-30", "20200101 0020",
      "2020-01-01 24:00", "2020-01-01 00:00 +02:00", "2020-01-01 00:00+2", "0000-01-01", "2020-01-01 00",
      "2020-01-01X00:00", "2019-02-29"]) {
      expect(errors(one(`${ts},1`)), ts).toEqual([`line 1: invalid timestamp "${ts}"`]);
    }
  });

  it("rejects instants outside 1680–2260", () => {
    expect(errors(one("1680-01-01 01:59,1"))).toEqual([
      'line 1: timestamp "1680-01-01 01:59" is outside 1680-01-01 to 2260-01-01',
    ]);
    expect(errors(one("2260-01-01T00:00:01Z,1"))).toEqual([
      'line 1: timestamp "2260-01-01T00:00:01Z" is outside 1680-01-01 to 2260-01-01',
    ]);
    expect(errors(one("0001-01-01,1", zone("Europe/Athens")))).toEqual([
      'line 1: timestamp "0001-01-01" is outside 1680-01-01 to 2260-01-01',
    ]);
  });

  it("reads values", () => {
    const cases: [string, number][] = [
      ["1", 1], ["-1", -1], ["+1", 1], ["1.", 1], [".5", 0.5], ["-.5", -0.5], ["1e3", 1000], ["1E+3", 1000],
      ["1.5e-3", 0.0015], ["-0", 0], ["-0.0", 0], ["0.1", 0.1], ["2.675", 2.675], ["123456789012345678901234567890", 1.2345678901234568e29],
      ["0.30000000000000004", 0.30000000000000004], ["11.000000000000000000000", 11], ["1e-400", 0], ["-1e-400", 0],
      ["1.7976931348623157e308", 1.7976931348623157e308], ["000012.50", 12.5], ["9007199254740993", 9007199254740992],
      ["1.00000000000000011102230246251565404236316680908203125", 1], // a tie: to even
      ["1.00000000000000011102230246251565404236316680908203126", 1.0000000000000002],
      ["4.9e-324", 5e-324], ["123456789012345.6", 123456789012345.6], ["1e22", 1e22], ["1e23", 1e23],
    ];
    for (const [text, v] of cases) {
      const p = ok(one(`2020-01-01,${text}`));
      expect(Object.is(p.values[0], v), `${text} → ${p.values[0]}`).toBe(true);
    }
    for (const text of ["", "nan", "NaN", "NAN", "  "]) {
      expect(Number.isNaN(ok(one(`2020-01-01,${text},`)).values[0]), text).toBe(true);
    }
  });

  it("matches Number() on random decimal texts", () => {
    let s = 7;
    const rnd = () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
    const lines: string[] = [];
    const texts: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const digits = Array.from({ length: 1 + Math.floor(rnd() * 20) }, () => Math.floor(rnd() * 10)).join("");
      const point = Math.floor(rnd() * (digits.length + 1));
      let t = digits.slice(0, point) + "." + digits.slice(point);
      if (t === ".") t = "0";
      if (rnd() < 0.3) t += "e" + (Math.floor(rnd() * 60) - 30);
      if (rnd() < 0.5) t = "-" + t;
      texts.push(t);
      lines.push(`${2000 + Math.floor(i / 365)}-01-01T00:00:${String(i % 60).padStart(2, "0")}+${String(Math.floor((i % 365) / 60) % 24).padStart(2, "0")}:00,${t}`);
    }
    const r = parseUpload(lines.join("\n"), display);
    // the lines are distinct instants only if the construction is; compare by line
    const p = ok(r);
    const byLine = new Map<number, number>();
    p.lines.forEach((ln, k) => byLine.set(ln, p.values[k]));
    texts.forEach((t, i) => {
      const v = Number(t);
      expect(Object.is(byLine.get(i + 1), v === 0 ? 0 : v), t).toBe(true);
    });
  });

  it("rejects bad values", () => {
    for (const text of ["abc", "inf", "Infinity", "-inf", "null", "0x10", "1e999", "-1e999", "1e", "e5", ".", "+", "-",
      "1.2.3", "1x", "- 1", "1 2", "+-1", "--1", "-nan", "nan1", "1_000", "١"]) {
      expect(errors(one(`2020-01-01,${text},`)), text).toEqual([`line 1: invalid value "${text}"`]);
    }
  });

  it("normalizes flags and rejects bad characters", () => {
    const f = (text: string) => ok(one(`2020-01-01,1,${text}`)).flags[0];
    expect(f("FLAG1  FLAG2 ")).toBe("FLAG1 FLAG2");
    expect(f("\tA\t\tB  C\t")).toBe("A B C");
    expect(f("")).toBe("");
    expect(f("   ")).toBe("");
    expect(f("ÄΩ-é_1 x'y")).toBe("ÄΩ-é_1 x'y");
    expect(ok(one("2020-01-01,1")).flags[0]).toBe("");
    for (const text of ['A"B', "A\u0001B", "A\u007fB", "A\u00a0B", "A\u2003B", "A\u000bB"]) {
      expect(errors(one(`2020-01-01,1,${text}`)), JSON.stringify(text)).toEqual(["line 1: invalid character in flags"]);
    }
  });

  it("limits flags to 1,000 characters (after normalizing; a character is a code point)", () => {
    const f = (text: string) => one(`2020-01-01,1,${text}`);
    expect(ok(f("A".repeat(1000))).flags[0]).toHaveLength(1000);
    expect(ok(f(`${"A".repeat(500)}    ${"B".repeat(499)}`)).flags[0]).toHaveLength(1000);
    expect(ok(f("😀".repeat(1000))).flags[0]).toHaveLength(2000);
    for (const text of ["A".repeat(1001), "😀".repeat(1001), `${"A ".repeat(500)}B`]) {
      expect(errors(f(text))).toEqual(["line 1: flags longer than 1000 characters"]);
    }
    const many = Array.from({ length: 12 }, (_, i) => `2020-01-01 00:${String(i).padStart(2, "0")},1,${"X".repeat(2000)}`).join("\n");
    expect(errors(parseUpload(many, display))).toHaveLength(10);
  });

  it("counts fields", () => {
    expect(errors(one("2020-01-01"))).toEqual(["line 1: expected 2 or 3 fields, found 1"]);
    expect(errors(one("2020-01-01,1,A,B,C"))).toEqual(["line 1: expected 2 or 3 fields, found 5"]);
    expect(errors(one("2020-01-01,,,"))).toEqual(["line 1: expected 2 or 3 fields, found 4"]);
    expect(errors(parseUpload("2020-01-01,1\n,1\n", display))).toEqual(['line 2: invalid timestamp ""']);
    // a first line that does not start with a digit makes the body an HTS file
    expect(errors(one(",,,"))).toEqual(['line 1: invalid header line ",,,"', "line 1: the header must be followed by a blank line"]);
  });

  it("cuts long texts to 40 characters", () => {
    const long = "x".repeat(45);
    expect(errors(one(`2020-01-01,${long}`))).toEqual([`line 1: invalid value "${"x".repeat(40)}..."`]);
    const forty = "y".repeat(40);
    expect(errors(one(`2020-01-01,${forty}`))).toEqual([`line 1: invalid value "${forty}"`]);
    const emoji = "😀".repeat(41);
    expect(errors(one(`2020-01-01,${emoji}`))).toEqual([`line 1: invalid value "${"😀".repeat(40)}..."`]);
  });
});

describe("checks on the whole upload (§6.4, §6.5)", () => {
  it("sorts records given in any order and keeps their line numbers", () => {
    const p = ok(parseUpload("2020-01-03,3,c\n2020-01-01,1,a\n2020-01-02,2,b\n", zone("UTC")));
    expect(Array.from(p.timestamps)).toEqual([utc(2020, 1, 1), utc(2020, 1, 2), utc(2020, 1, 3)]);
    expect(Array.from(p.values)).toEqual([1, 2, 3]);
    expect(p.flags).toEqual(["a", "b", "c"]);
    expect(Array.from(p.lines)).toEqual([2, 3, 1]);
  });

  it("stops at the tenth message", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `2020-13-${String(i + 1).padStart(2, "0")},1`);
    const errs = errors(parseUpload(lines.join("\n"), display));
    expect(errs.length).toBe(10);
    expect(errs[0]).toBe('line 1: invalid timestamp "2020-13-01"');
    expect(errs[9]).toBe('line 10: invalid timestamp "2020-13-10"');
  });

  it("merges duplicate messages in line order with the others, 10 at most", () => {
    const lines: string[] = [];
    for (let i = 0; i < 8; i++) lines.push(`2020-01-01 00:0${i},1,`); // lines 1–8
    for (let i = 0; i < 8; i++) lines.push(i % 2 === 0 ? `2020-01-01 00:0${i},2,` : "x,1"); // lines 9–16
    const errs = errors(parseUpload(lines.join("\n"), zone("UTC")));
    expect(errs).toEqual([
      "line 9: timestamp 2020-01-01T00:00:00+00:00 also appears on line 1",
      'line 10: invalid timestamp "x"',
      "line 11: timestamp 2020-01-01T00:02:00+00:00 also appears on line 3",
      'line 12: invalid timestamp "x"',
      "line 13: timestamp 2020-01-01T00:04:00+00:00 also appears on line 5",
      'line 14: invalid timestamp "x"',
      "line 15: timestamp 2020-01-01T00:06:00+00:00 also appears on line 7",
      'line 16: invalid timestamp "x"',
    ]);
    const many = Array.from({ length: 30 }, () => "2020-01-01 00:00,1,").join("\n");
    const e2 = errors(parseUpload(many, zone("UTC")));
    expect(e2.length).toBe(10);
    expect(e2[9]).toBe("line 11: timestamp 2020-01-01T00:00:00+00:00 also appears on line 1");
  });

  it("reports every appended line that is not later, 10 at most, in line order", () => {
    // lines 1–25: 00:59 down to 00:35; stored end 00:50 → lines 10–25 offend
    const text = Array.from({ length: 25 }, (_, i) => `2020-01-01 00:${String(59 - i).padStart(2, "0")},1,`).join("\n");
    const p = ok(parseUpload(text, zone("UTC")));
    const errs = appendErrors(p, utc(2020, 1, 1, 0, 50));
    expect(errs.length).toBe(10);
    expect(errs[0]).toBe(
      "line 10: 2020-01-01T00:50:00+00:00 is not later than the last stored record (2020-01-01T00:50:00+00:00)",
    );
    expect(errs[9]).toBe(
      "line 19: 2020-01-01T00:41:00+00:00 is not later than the last stored record (2020-01-01T00:50:00+00:00)",
    );
    expect(errs.map((e) => Number(e.slice(5, e.indexOf(":"))))).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(appendErrors(p, utc(2020, 1, 1, 0, 34, 59))).toEqual([]);
    expect(appendErrors(p, utc(2020, 1, 1, 0, 35))).toEqual([
      "line 25: 2020-01-01T00:35:00+00:00 is not later than the last stored record (2020-01-01T00:35:00+00:00)",
    ]);
  });

  it("reports inserted instants that exist, in line order", () => {
    const p = ok(parseUpload("2020-01-01 00:20,1,\n2020-01-01 00:10,1,\n2020-01-01 00:15,1,\n", zone("UTC")));
    const stored = [utc(2020, 1, 1, 0, 10), utc(2020, 1, 1, 0, 20), utc(2020, 1, 1, 0, 30)];
    expect(insertErrors(p, stored)).toEqual([
      "line 1: a record at 2020-01-01T00:20:00+00:00 already exists",
      "line 2: a record at 2020-01-01T00:10:00+00:00 already exists",
    ]);
    expect(insertErrors(p, new Float64Array(stored))).toHaveLength(2);
    expect(insertErrors(p, [])).toEqual([]);
  });
});
