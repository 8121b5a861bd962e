import { describe, expect, it } from "vitest";
import { parseCanonicalRecords } from "@/lib/formats/canonical-records";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { parseUpload } from "@/lib/formats/upload";

const UTC = resolveTimeZone("UTC")!;

/** A pseudo-random generator with a seed, so that a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

/** A record line that may be canonical or one of its near misses. */
function line(rnd: () => number, t: number): string {
  const d = new Date(t * 1000);
  let ts = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`;
  if (rnd() < 0.1) ts += `:${pad(d.getUTCSeconds(), 2)}`;
  if (rnd() < 0.02) ts = ts.replace(" ", "T");
  const values = ["", "0", "-0", "12.5", "-3.125", "0.001", "1e3", "nan", "+4", ".5", "5.", "123456789012345", "1234567890123456", "0.1234567890123456789",
    "99999999999999.9", "-", "x", " 7", "7 ", String(rnd() * 1000), (rnd() * 100 - 50).toFixed(2), "00.25",
    ...Array.from({ length: 8 }, () => ((rnd() - 0.3) * 10 ** Math.floor(rnd() * 9)).toFixed(Math.floor(rnd() * 9)))];
  const value = values[Math.floor(rnd() * values.length)];
  const flags = ["", "", "", "MISS", "A B", "FLAG1 FLAG2", " A", "A ", "A  B", "A\tB", "Ü", "A,B", '"A"', "x".repeat(1001)];
  const f = flags[Math.floor(rnd() * flags.length)];
  const fields = rnd() < 0.3 && f === "" ? `${ts},${value}` : `${ts},${value},${f}`;
  const ends = ["\r\n", "\r\n", "\n", "\r\r\n"];
  return fields + ends[Math.floor(rnd() * ends.length)];
}

describe("parseCanonicalRecords", () => {
  it("reads what the upload parser reads, or leaves the text to it", () => {
    let accepted = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const rnd = random(seed);
      const lines: string[] = [];
      let t = -2_000_000_000 + Math.floor(rnd() * 4_000_000_000);
      const count = 1 + Math.floor(rnd() * 12);
      for (let i = 0; i < count; i++) {
        t += rnd() < 0.05 ? 0 : 60 + Math.floor(rnd() * 100_000);
        lines.push(line(rnd, t));
      }
      // Most texts: every line from the canonical choices only.
      const text = rnd() < 0.5 ? lines.join("") : lines.map((l) => l.replace(/,[^,\r\n]*(,[^\r\n]*)?(\r?\r?\n)$/, ",1.5,$2")).join("");
      const fast = parseCanonicalRecords(text, 0, -Infinity);
      const slow = parseUpload(text, UTC);
      if (fast === null) continue;
      accepted++;
      expect(slow.ok, text).toBe(true);
      if (!slow.ok) continue;
      expect([...fast.timestamps], text).toEqual([...slow.timestamps]);
      expect([...fast.values].map((v) => (Number.isNaN(v) ? "null" : Object.is(v, -0) ? "-0" : v)), text)
        .toEqual([...slow.values].map((v) => (Number.isNaN(v) ? "null" : Object.is(v, -0) ? "-0" : v)));
      expect(fast.flags, text).toEqual(slow.flags);
      expect(fast.lineBreaks, text).toBe((text.match(/\n/g) ?? []).length);
    }
    expect(accepted).toBeGreaterThan(200);
  });

  it("reads this service's data/ lines", () => {
    const r = parseCanonicalRecords("2018-12-09 11:10,20.46,\r\n2018-12-09 11:20,,MISS\r\n2018-12-09 11:30,21,FLAG1 FLAG2\r\n2018-12-31 22:00,-3.125,", 0, -Infinity);
    expect(r).not.toBeNull();
    expect([...r!.timestamps]).toEqual([1544353800, 1544354400, 1544355000, 1546293600]);
    expect([...r!.values]).toEqual([20.46, NaN, 21, -3.125]);
    expect(r!.flags).toEqual(["", "MISS", "FLAG1 FLAG2", ""]);
    expect(r!.lineBreaks).toBe(3);
  });

  it("leaves headers, blank lines, records out of order and invalid dates to the upload parser", () => {
    for (const text of ["Timezone=UTC\r\n\r\n2020-01-01 00:00,1,\r\n", "2020-01-01 00:00,1,\r\n\r\n", "2020-01-01 00:10,1,\r\n2020-01-01 00:00,1,\r\n",
      "2020-01-01 00:00,1,\r\n2020-01-01 00:00,2,\r\n", "2021-02-29 00:00,1,\r\n", "2020-01-01 24:00,1,\r\n", "0000-01-01 00:00,1,\r\n", "\ufeff2020-01-01 00:00,1,\r\n",
      "2020-01-01 00:00,1,,\r\n", "2020-01-01 00:0x,1,\r\n", "1600-01-01 00:00,1,\r\n"]) {
      expect(parseCanonicalRecords(text, 0, -Infinity), JSON.stringify(text)).toBeNull();
    }
    expect(parseCanonicalRecords("2020-01-01 00:00,1,\r\n", 0, 1577836800)).toBeNull();
    expect(parseCanonicalRecords("2020-01-01 00:00,1,\r\n", 0, 1577836799)).not.toBeNull();
  });
});
