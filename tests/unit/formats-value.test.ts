import { describe, expect, it } from "vitest";
import { formatValue, formatValueExact, writeValueFast } from "@/lib/formats/value";

// formats.md §1.3, every row.
const TABLE: [number | null, number, string][] = [
  [-3.125, 2, "-3.12"],
  [2.675, 2, "2.67"],
  [1.005, 2, "1.00"],
  [0.125, 2, "0.12"],
  [0.375, 2, "0.38"],
  [4.125, 2, "4.12"],
  [20.456, 2, "20.46"],
  [21, 2, "21.00"],
  [0.5, 0, "0"],
  [1.5, 0, "2"],
  [2.5, 0, "2"],
  [-0.5, 0, "-0"],
  [-0.001, 2, "-0.00"],
  [0, 2, "0.00"],
  [125, -1, "120"],
  [135, -1, "140"],
  [15, -1, "20"],
  [25, -1, "20"],
  [-5, -1, "-0"],
  [123.456, -1, "120"],
  [1234.5, -2, "1200"],
  [150, -2, "200"],
  [250, -2, "200"],
  [0.4, -1, "0"],
  [0.1, 20, "0.10000000000000000555"],
  [1e22, 0, "10000000000000000000000"],
  [123456789.125, 2, "123456789.12"],
  [null, 2, ""],
  [null, 0, ""],
  [null, -3, ""],
];

describe("formatValue (formats.md §1.3)", () => {
  it.each(TABLE)("%s at p=%s → %s", (x, p, expected) => {
    expect(formatValue(x, p)).toBe(expected);
    expect(formatValueExact(x, p)).toBe(expected);
  });

  it("writes HTS coordinates and altitudes (§1.4)", () => {
    expect(formatValue(21.06071, 6)).toBe("21.060710");
    expect(formatValue(-0.127758, 6)).toBe("-0.127758");
    expect(formatValue(39.09518, 6)).toBe("39.095180");
    expect(formatValue(219, 2)).toBe("219.00");
    expect(formatValue(0, 2)).toBe("0.00");
  });

  it("handles more ties, signs and edge cases", () => {
    const cases: [number, number, string][] = [
      [-2.5, 0, "-2"],
      [-3.5, 0, "-4"],
      [3.5, 0, "4"],
      [0.25, 1, "0.2"],
      [0.35, 1, "0.3"], // 0.35 is below the tie in binary
      [-0.125, 2, "-0.12"],
      [-0.375, 2, "-0.38"],
      [9.5, 0, "10"],
      [99.5, 0, "100"],
      [-0, 2, "-0.00"],
      [-0, 0, "-0"],
      [-0, -1, "-0"],
      [0, -3, "0"],
      [5, -1, "0"],
      [-15, -1, "-20"],
      [1e21, 0, "1000000000000000000000"],
      [-1e21, 2, "-1000000000000000000000.00"],
      [5e-324, 20, "0.00000000000000000000"],
      [-5e-324, 2, "-0.00"],
      [0.5, 20, "0.50000000000000000000"],
      [1234567.5, -1, "1234570"],
      [1234565, -1, "1234560"],
      [9007199254740993, -1, "9007199254740990"],
      [45, -1, "40"],
      [55, -1, "60"],
      [45.000001, -1, "50"],
      [500, -3, "0"],
      [1500, -3, "2000"],
      [2500, -3, "2000"],
      [-1500, -3, "-2000"],
      [12345678901, -10, "10000000000"],
      [15000000000, -10, "20000000000"],
      [25000000000, -10, "20000000000"],
    ];
    for (const [x, p, expected] of cases) {
      expect(formatValueExact(x, p), `exact ${x} ${p}`).toBe(expected);
      expect(formatValue(x, p), `fast ${x} ${p}`).toBe(expected);
    }
  });

  it("rounds the largest double at p=-10 exactly", () => {
    const exact = 2n ** 1024n - 2n ** 971n;
    const unit = 10n ** 10n;
    let q = exact / unit;
    const r = exact % unit;
    if (2n * r > unit || (2n * r === unit && q % 2n === 1n)) q += 1n;
    expect(formatValue(Number.MAX_VALUE, -10)).toBe((q * unit).toString());
    expect(formatValue(-Number.MAX_VALUE, 0)).toBe("-" + exact.toString());
  });

  it("writes NaN and infinities (a value no upload stores, but one the store may hold) as null", () => {
    expect(formatValue(NaN, 2)).toBe("");
    expect(formatValue(Infinity, 2)).toBe("");
    expect(formatValue(-Infinity, -2)).toBe("");
    expect(formatValue(Infinity, 40)).toBe("");
  });

  it("agrees with the BigInt algorithm on random doubles (200k)", () => {
    // Deterministic xorshift generator.
    let s = 0x9e3779b9;
    const rnd = () => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>> 0) / 4294967296;
    };
    const f64 = new Float64Array(1);
    const u32 = new Uint32Array(f64.buffer);
    let mismatches = 0;
    const first: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      let x: number;
      const kind = i % 5;
      if (kind === 0) {
        // arbitrary bit patterns
        u32[0] = (rnd() * 4294967296) >>> 0;
        u32[1] = (rnd() * 4294967296) >>> 0;
        x = f64[0];
        if (!Number.isFinite(x)) continue;
      } else if (kind === 1) {
        // ties: k/2^j
        x = (Math.floor(rnd() * 2e6) - 1e6) / 2 ** Math.floor(rnd() * 8);
      } else if (kind === 2) {
        // typical measurements with a few decimals
        x = Math.round((rnd() - 0.5) * 2e7) / 10 ** Math.floor(rnd() * 6);
      } else if (kind === 3) {
        // integers, including multiples of 5·10^k (ties at negative precision)
        x = Math.floor((rnd() - 0.5) * 2e6) * 5 * 10 ** Math.floor(rnd() * 8);
      } else {
        x = (rnd() - 0.5) * 10 ** (Math.floor(rnd() * 40) - 20);
      }
      const p = Math.floor(rnd() * 31) - 10; // −10 … 20
      if (i % 7 === 0) {
        // a few ulps around a tie at this precision
        const tie = (Math.floor((rnd() - 0.5) * 2e5) + 0.5) / 10 ** Math.max(p, 0) * 10 ** Math.max(-p, 0);
        f64[0] = tie;
        u32[0] += Math.floor(rnd() * 7) - 3;
        x = f64[0];
      }
      const a = formatValue(x, p);
      const b = formatValueExact(x, p);
      if (a !== b) {
        mismatches++;
        if (first.length < 5) first.push(`${x} p=${p}: fast ${a} exact ${b}`);
      }
    }
    expect(first).toEqual([]);
    expect(mismatches).toBe(0);
  });
});

describe("writeValueFast (formatValue's text as bytes)", () => {
  it("writes formatValueExact's text, or declines, on random doubles and near-ties (300k)", () => {
    let s = 0x1234567;
    const rnd = () => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>> 0) / 4294967296;
    };
    const f64 = new Float64Array(1);
    const u32 = new Uint32Array(f64.buffer);
    const buf = Buffer.alloc(64);
    let written = 0;
    const first: string[] = [];
    for (let i = 0; i < 300_000; i++) {
      const p = Math.floor(rnd() * 26) - 2; // −2 … 23
      let x: number;
      const kind = i % 6;
      if (kind === 0) {
        u32[0] = (rnd() * 4294967296) >>> 0;
        u32[1] = (rnd() * 4294967296) >>> 0;
        x = f64[0];
        if (!Number.isFinite(x)) continue;
      } else if (kind === 1) {
        // exact ties k/2^j and decimal near-ties like 15.25 at p = 1
        x = (Math.floor(rnd() * 2e6) - 1e6) / 2 ** Math.floor(rnd() * 12);
      } else if (kind === 2) {
        x = Math.round((rnd() - 0.5) * 2e7) / 10 ** Math.floor(rnd() * 8);
      } else if (kind === 3) {
        // a few ulps around a decimal tie at this precision
        f64[0] = (Math.floor((rnd() - 0.5) * 2e9) + 0.5) / 10 ** Math.max(p, 0);
        u32[0] += Math.floor(rnd() * 9) - 4;
        x = f64[0];
      } else if (kind === 4) {
        x = (rnd() - 0.5) * 10 ** (Math.floor(rnd() * 40) - 20);
      } else {
        x = [0, -0, 0.5, -0.5, 1.5, 2.5, 0.05, 0.15, 0.25, 0.35, 1e-22, 4503599627370495.5, 4503599627370496][Math.floor(rnd() * 13)];
      }
      const end = writeValueFast(buf, 3, x, p);
      if (end < 0) continue;
      written++;
      const got = buf.toString("latin1", 3, end);
      const want = formatValueExact(x, p);
      if (got !== want && first.length < 5) first.push(`${x} p=${p}: ${got} want ${want}`);
    }
    expect(first).toEqual([]);
    expect(written).toBeGreaterThan(150_000);
  });

  it("declines NaN, negative precisions and large products", () => {
    const buf = Buffer.alloc(64);
    expect(writeValueFast(buf, 0, NaN, 2)).toBe(-1);
    expect(writeValueFast(buf, 0, 12, -1)).toBe(-1);
    expect(writeValueFast(buf, 0, 1e16, 0)).toBe(-1);
    expect(writeValueFast(buf, 0, 1, 23)).toBe(-1);
    expect(buf.toString("latin1", 0, writeValueFast(buf, 0, -0.04, 1))).toBe("-0.0");
    expect(buf.toString("latin1", 0, writeValueFast(buf, 0, 15.25, 1))).toBe("15.2");
    expect(buf.toString("latin1", 0, writeValueFast(buf, 0, 15.35, 1))).toBe(formatValueExact(15.35, 1));
  });
});
