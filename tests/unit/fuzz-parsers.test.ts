import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDateParam } from "@/lib/formats/date-param";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { isValidTimeStep } from "@/lib/formats/time-step";
import { parseUpload } from "@/lib/formats/upload";
import { formatValue, formatValueExact } from "@/lib/formats/value";
import { parseAreaGeom, parseBbox, parsePointGeom } from "@/lib/geo/wkt";
import { parseFormBytes } from "@/lib/http/body";

/** Hostile input (issue 8): the parsers never throw, whatever they are given. */
const zone = resolveTimeZone("Etc/GMT-2")!;
const athens = resolveTimeZone("Europe/Athens")!;

/** Text made of the pieces upload lines are made of, so that near-valid lines are common. */
const pieces = fc.constantFrom("2020-01-01", " ", "T", "00:10", ":30", "+02:00", "Z", ",", "1.5", "-0", "nan", "1e999", "FLAG", "\t",
  "\n", "\r\n", "\r", "\uFEFF", "Timezone=", "EET (UTC+0200)", "=", "0x10", "\u0000", "é", "\"", "9999-12-31", "1680-01-01", "2260-01-01");
const uploadText = fc.oneof(fc.string({ unit: "binary" }), fc.array(pieces, { maxLength: 60 }).map((p) => p.join("")));

describe("the upload parser", () => {
  it("never throws; success is sorted and unique, failure is at most 10 line messages", () => {
    fc.assert(fc.property(uploadText, fc.constantFrom(zone, athens), (text, z) => {
      const result = parseUpload(text, z);
      if (result.ok) {
        const { timestamps, values, flags, lines } = result;
        expect(values.length).toBe(timestamps.length);
        expect(flags.length).toBe(timestamps.length);
        expect(lines.length).toBe(timestamps.length);
        for (let i = 1; i < timestamps.length; i++) expect(timestamps[i]).toBeGreaterThan(timestamps[i - 1]);
        for (let i = 0; i < timestamps.length; i++) {
          expect(Number.isInteger(timestamps[i])).toBe(true);
          expect(timestamps[i]).toBeGreaterThanOrEqual(-9151488000);
          expect(timestamps[i]).toBeLessThanOrEqual(9151488000);
          expect(Number.isNaN(values[i]) || Number.isFinite(values[i])).toBe(true);
          // Flags separated by single spaces (formats.md), none containing a separator or a control character.
          expect(flags[i]).toMatch(/^([^\s,"\u0000-\u001f\u007f]+( [^\s,"\u0000-\u001f\u007f]+)*)?$/);
        }
      } else {
        expect(result.errors.length).toBeGreaterThan(0);
        expect(result.errors.length).toBeLessThanOrEqual(10);
        for (const e of result.errors) expect(e).toMatch(/^line \d+: /);
      }
    }), { numRuns: 3000 });
  });
});

describe("parameter parsers", () => {
  it("never throw on arbitrary text", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
      const start = parseDateParam(text, zone, "start");
      expect(start === "invalid" || (Number.isInteger(start) && Math.abs(start) <= 9151488000)).toBe(true);
      parseDateParam(text, zone, "end");
      expect(typeof isValidTimeStep(text)).toBe("boolean");
      resolveTimeZone(text);
      const bbox = parseBbox(text);
      if (bbox) for (const n of bbox) expect(Number.isFinite(n)).toBe(true);
      const point = parsePointGeom(text);
      if (point.ok) {
        expect(Math.abs(point.lon)).toBeLessThanOrEqual(180);
        expect(Math.abs(point.lat)).toBeLessThanOrEqual(90);
      } else expect(point.message.length).toBeGreaterThan(0);
      parseAreaGeom(text);
    }), { numRuns: 3000 });
  });

  it("read geometry-like text without throwing", () => {
    const geo = fc.array(fc.constantFrom("SRID=", "2100", "3857", "9999", ";", "POINT", "POLYGON", "MULTIPOLYGON", "(", ")", " ", ",",
      "1e308", "-1e308", "250000", "4300000", "21", "39", "NaN", "EMPTY", "Z"), { maxLength: 30 }).map((p) => p.join(""));
    fc.assert(fc.property(geo, (text) => {
      parsePointGeom(text);
      parseAreaGeom(text);
    }), { numRuns: 3000 });
  });

  it("decode arbitrary form bodies (random bytes, invalid UTF-8)", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      for (const [k, v] of parseFormBytes(bytes)) {
        expect(typeof k).toBe("string");
        expect(typeof v).toBe("string");
      }
    }), { numRuns: 3000 });
  });

  it("format any double the exact way", () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -10, max: 20 }), (x, p) => {
      expect(formatValue(x, p)).toBe(formatValueExact(x, p));
    }), { numRuns: 20000 });
  });
});
