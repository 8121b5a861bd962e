import { describe, expect, it } from "vitest";
import { parseDateParam } from "@/lib/formats/date-param";
import { bottomLine, formatRecordLine, formatRecordLines, recordLinesBytes } from "@/lib/formats/records";
import { makeTimestampFormatter, makeTimestampWriter } from "@/lib/formats/timestamp";
import { invalidTimeZoneMessage, resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
const zone = (n: string): TimeZone => resolveTimeZone(n)!;

// formats.md §0: records of time series 12, group precision 2
const TS = [utc(2018, 12, 9, 11, 10), utc(2018, 12, 9, 11, 20), utc(2018, 12, 9, 11, 30), utc(2018, 12, 31, 22)];
const VS = [20.456, null, 21, -3.125];
const FL = ["", "MISS", "FLAG1 FLAG2", ""];

function body(zoneName: string, from = 0, to = TS.length): string {
  return formatRecordLines(TS.slice(from, to), VS.slice(from, to), FL.slice(from, to), to - from, 2,
    makeTimestampFormatter(zone(zoneName)));
}

describe("record lines (formats.md §2.1, §2.4)", () => {
  it("GET TS12/data/ gives the exact body", () => {
    expect(body("Etc/GMT-2")).toBe(
      "2018-12-09 13:10,20.46,\r\n2018-12-09 13:20,,MISS\r\n2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n",
    );
  });

  it("?timezone=UTC&start_date=2018-12-09T13:20", () => {
    expect(body("UTC", 1)).toBe("2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21.00,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.12,\r\n");
  });

  it("?start_date=2018-12-09T11:30:00Z&end_date=2018-12-31T22:00:00Z", () => {
    expect(body("Etc/GMT-2", 2)).toBe("2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n");
  });

  it("an empty result is an empty body", () => {
    expect(body("Etc/GMT-2", 0, 0)).toBe("");
  });

  it("?timezone=America/New_York", () => {
    const b = body("America/New_York");
    expect(b.startsWith("2018-12-09 06:10,20.46,\r\n")).toBe(true);
    expect(b.endsWith("2018-12-31 17:00,-3.12,\r\n")).toBe(true);
  });

  it("bottom lines have no CR LF (§2.3)", () => {
    const last = TS.length - 1;
    expect(bottomLine(TS[last], VS[last], FL[last], 2, makeTimestampFormatter(zone("Etc/GMT-2")))).toBe("2019-01-01 00:00,-3.12,");
    expect(bottomLine(TS[last], VS[last], FL[last], 2, makeTimestampFormatter(zone("UTC")))).toBe("2018-12-31 22:00,-3.12,");
    expect(bottomLine(TS[last], VS[last], FL[last], 2, makeTimestampFormatter(zone("Etc/GMT-5")))).toBe("2019-01-01 03:00,-3.12,");
  });

  it("formats single lines, NaN as null, seconds truncated", () => {
    const f = makeTimestampFormatter(zone("UTC"));
    expect(formatRecordLine(utc(2018, 12, 9, 13, 10, 59), 1.5, "A", 1, f)).toBe("2018-12-09 13:10,1.5,A\r\n");
    expect(formatRecordLine(0, NaN, "", 1, f)).toBe("1970-01-01 00:00,,\r\n");
    expect(formatRecordLine(0, null, "MISS", 0, f)).toBe("1970-01-01 00:00,,MISS\r\n");
  });

  it("formats a slice of typed arrays", () => {
    const ts = new Float64Array([0, 60, 120, 180]);
    const vs = new Float64Array([1, NaN, 0.125, -0.5]);
    const fl = ["a", "", "b", "c"];
    const f = makeTimestampFormatter(zone("UTC"));
    expect(formatRecordLines(ts, vs, fl, 2, 2, f, 1)).toBe("1970-01-01 00:01,,\r\n1970-01-01 00:02,0.12,b\r\n");
    expect(formatRecordLines(ts, vs, fl, 1, 0, f, 3)).toBe("1970-01-01 00:03,-0,c\r\n");
  });

  it("DST repeated hour prints twice (§2.4)", () => {
    const f = makeTimestampFormatter(zone("Europe/Athens"));
    expect(formatRecordLines([utc(2020, 10, 25, 0, 30), utc(2020, 10, 25, 1, 30)], [1, 2], ["", ""], 2, 0, f)).toBe(
      "2020-10-25 03:30,1,\r\n2020-10-25 03:30,2,\r\n",
    );
  });
});

describe("the §2.4 query table, end to end on the pure functions", () => {
  const display = zone("Etc/GMT-2");
  /** The body of TS12/data/ for a query (csv), as the route would compute it. */
  function get(q: { timezone?: string; start_date?: string; end_date?: string }): string {
    const out = q.timezone ? resolveTimeZone(q.timezone) : display;
    if (out === null) throw new Error(invalidTimeZoneMessage(q.timezone ?? ""));
    const s = q.start_date ? parseDateParam(q.start_date, display, "start") : -Infinity;
    const e = q.end_date ? parseDateParam(q.end_date, display, "end") : Infinity;
    if (s === "invalid" || e === "invalid") throw new Error("400");
    const idx = TS.map((_, i) => i).filter((i) => TS[i] >= s && TS[i] <= e);
    return formatRecordLines(idx.map((i) => TS[i]), idx.map((i) => VS[i]), idx.map((i) => FL[i]), idx.length, 2,
      makeTimestampFormatter(out));
  }

  it("selects and writes each row", () => {
    expect(get({ timezone: "UTC", start_date: "2018-12-09T13:20" })).toBe(
      "2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21.00,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.12,\r\n",
    );
    expect(get({ start_date: "2018-12-09T11:30:00Z", end_date: "2018-12-31T22:00:00Z" })).toBe(
      "2018-12-09 13:30,21.00,FLAG1 FLAG2\r\n2019-01-01 00:00,-3.12,\r\n",
    );
    expect(get({ end_date: "2018-12-09" })).toBe("");
    expect(get({ start_date: "2019-01-01", end_date: "2018-01-01" })).toBe("");
    expect(get({ timezone: "America/New_York" }).split("\r\n")).toEqual([
      "2018-12-09 06:10,20.46,", "2018-12-09 06:20,,MISS", "2018-12-09 06:30,21.00,FLAG1 FLAG2", "2018-12-31 17:00,-3.12,", "",
    ]);
    expect(get({ start_date: "0001-01-01T00:01:00+00:00" })).toBe(get({}));
    expect(get({ timezone: "Etc/GMT-2" })).toBe(get({}));
    expect(() => get({ timezone: "Nowhere/Zone" })).toThrow('"Nowhere/Zone" is not a valid choice.');
    expect(() => get({ start_date: "hello" })).toThrow("400");
  });
});

describe("recordLinesBytes: formatRecordLines's text as UTF-8 bytes", () => {
  const bytes = (ts: ArrayLike<number>, vs: ArrayLike<number | null>, fl: ArrayLike<string>, precision: number, zoneName: string, start = 0, count = ts.length - start) =>
    recordLinesBytes(ts, vs, fl, count, precision, makeTimestampWriter(zone(zoneName)), start).toString("utf8");
  const text = (ts: ArrayLike<number>, vs: ArrayLike<number | null>, fl: ArrayLike<string>, precision: number, zoneName: string, start = 0, count = ts.length - start) =>
    formatRecordLines(ts, vs, fl, count, precision, makeTimestampFormatter(zone(zoneName)), start);

  it("writes the same lines as the text formatter", () => {
    expect(bytes(TS, VS, FL, 2, "Etc/GMT-2")).toBe(body("Etc/GMT-2"));
    const ts = new Float64Array([0, 60, 120, 180]);
    const vs = new Float64Array([1, NaN, 0.125, -0.5]);
    const fl = ["a", "", "b", "c"];
    expect(bytes(ts, vs, fl, 2, "UTC", 1, 2)).toBe("1970-01-01 00:01,,\r\n1970-01-01 00:02,0.12,b\r\n");
    expect(bytes(ts, vs, fl, 0, "UTC", 3, 1)).toBe("1970-01-01 00:03,-0,c\r\n");
    expect(bytes([0], [0], [""], 0, "UTC")).toBe("1970-01-01 00:00,0,\r\n");
    expect(bytes([0], [-0], [""], 3, "UTC")).toBe("1970-01-01 00:00,-0.000,\r\n");
    expect(bytes([0], [1e300], ["ΑΒΓ 😀"], 2, "UTC")).toBe(text([0], [1e300], ["ΑΒΓ 😀"], 2, "UTC"));
    expect(bytes([], [], [], 2, "UTC")).toBe("");
    // years with more than four digits, and before year 0
    expect(bytes([-70000000000, 300000000000], [1.5, 2.5], ["", ""], 1, "UTC")).toBe(text([-70000000000, 300000000000], [1.5, 2.5], ["", ""], 1, "UTC"));
    expect(bytes([utc(2020, 10, 25, 0, 30), utc(2020, 10, 25, 1, 30)], [1, 2], ["", ""], 0, "Europe/Athens")).toBe("2020-10-25 03:30,1,\r\n2020-10-25 03:30,2,\r\n");
  });

  it("agrees with the text formatter on random records (values, precisions, zones, flags)", () => {
    let s = 0x2545f491;
    const rnd = () => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>> 0) / 4294967296;
    };
    const f64 = new Float64Array(1);
    const u32 = new Uint32Array(f64.buffer);
    const FLAGS = ["", "", "", "", "MISS", "FLAG1 FLAG2", "Ω", "😀x", "\ud800"];
    for (const zoneName of ["UTC", "Etc/GMT-2", "Europe/Athens", "America/New_York", "Asia/Kathmandu"]) {
      for (let round = 0; round < 40; round++) {
        const n = 1 + Math.floor(rnd() * 3000);
        const ts = new Float64Array(n);
        const vs = new Float64Array(n);
        const fl: string[] = [];
        let t = Math.floor((rnd() - 0.3) * 4e9);
        for (let i = 0; i < n; i++) {
          t += 1 + Math.floor(rnd() * (rnd() < 0.9 ? 900 : 5e6));
          ts[i] = t + (rnd() < 0.1 ? rnd() : 0);
          const kind = Math.floor(rnd() * 7);
          if (kind === 0) {
            u32[0] = (rnd() * 4294967296) >>> 0;
            u32[1] = (rnd() * 4294967296) >>> 0;
            vs[i] = Number.isFinite(f64[0]) ? f64[0] : 1;
          } else if (kind === 1) vs[i] = NaN;
          else if (kind === 2) vs[i] = (Math.floor(rnd() * 2e6) - 1e6) / 2 ** Math.floor(rnd() * 8);
          else if (kind === 3) vs[i] = rnd() < 0.5 ? 0 : -0;
          else if (kind === 4) vs[i] = (rnd() - 0.5) * 10 ** (Math.floor(rnd() * 40) - 20);
          else vs[i] = Math.round((rnd() - 0.5) * 2e7) / 10 ** Math.floor(rnd() * 6);
          fl.push(FLAGS[Math.floor(rnd() * FLAGS.length)]);
        }
        const precision = Math.floor(rnd() * 36) - 10; // −10 … 25
        const start = Math.floor(rnd() * n);
        // As bytes: a lone surrogate is written as U+FFFD, as Buffer.from(text) writes it.
        const got = recordLinesBytes(ts, vs, fl, n - start, precision, makeTimestampWriter(zone(zoneName)), start);
        expect(got.equals(Buffer.from(text(ts, vs, fl, precision, zoneName, start), "utf8"))).toBe(true);
      }
    }
  });
});
