/**
 * Value formatting by precision (formats.md §1).
 *
 * `formatValue` rounds the *exact* binary value of a double to a multiple of 10^-p with ties
 * to even, writes exactly p decimals (p > 0) or an integer (p ≤ 0), keeps the sign of
 * negative values that round to zero and never uses exponent form.
 *
 * `formatValueExact` is the defining BigInt algorithm of §1.2. `formatValue` takes faster
 * routes that give identical results (a randomized test compares them):
 *
 * 1. p ≥ 0, |x·10^p| < 2^52 and the fraction of x·10^p clearly away from 1/2: one
 *    multiplication and integer formatting;
 * 2. p ≥ 0, |x| < 1e21: `toFixed` (exact on the binary value) with the exact-tie correction;
 * 3. −15 ≤ p < 0, |x| < 2^53: exact integer arithmetic on doubles;
 * 4. anything else: the BigInt algorithm.
 */

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
/** Index of the high 32-bit word of a double in U32 (endianness of the host). */
const HI = (() => {
  F64[0] = 1; // 0x3FF00000_00000000
  return U32[1] === 0x3ff00000 ? 1 : 0;
})();
const LO = 1 - HI;

const BIG0 = BigInt(0);
const BIG1 = BigInt(1);
const BIG2 = BigInt(2);
const POW10_BIG: bigint[] = [];
for (let i = 0, v = BIG1; i <= 350; i++, v *= BigInt(10)) POW10_BIG.push(v);

/** 10^k as a double, exact for 0 ≤ k ≤ 22. */
const POW10: number[] = [];
for (let i = 0, v = 1; i <= 22; i++, v *= 10) POW10.push(v);
/** 2^k, 0 ≤ k ≤ 102. */
const TWO_POW: number[] = [];
for (let i = 0, v = 1; i <= 102; i++, v *= 2) TWO_POW.push(v);
/** "", "0", "00", … */
const ZEROS: string[] = [];
for (let i = 0; i <= 23; i++) ZEROS.push("0".repeat(i));
/** "0", "0.0", "0.00", … */
const POINT_ZEROS: string[] = [];
for (let i = 0; i <= 100; i++) POINT_ZEROS.push(i === 0 ? "0" : "0." + "0".repeat(i));

const TWO52 = 4503599627370496;
const TWO53 = 9007199254740992;

/** Odd last digits decremented by one: turns an away-from-zero tie into the even one. */
const DEC_DIGIT: Record<string, string> = { "1": "0", "3": "2", "5": "4", "7": "6", "9": "8" };

/**
 * The reference algorithm of formats.md §1.2 (BigInt, no floating-point rounding).
 * A null or NaN value gives "". Infinite values throw.
 */
export function formatValueExact(x: number | null, p: number): string {
  if (x === null || Number.isNaN(x)) return "";
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  if (!Number.isInteger(p) || p < -350 || p > 350) throw new RangeError(`unsupported precision: ${p}`);
  F64[0] = x;
  const hi = U32[HI];
  const lo = U32[LO];
  const neg = hi >>> 31 === 1;
  const biasedExp = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << BigInt(32)) | BigInt(lo);
  let e: number;
  if (biasedExp === 0) {
    e = -1074;
  } else {
    m |= BIG1 << BigInt(52);
    e = biasedExp - 1075;
  }
  let num = m;
  let den = BIG1;
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  if (p >= 0) num *= POW10_BIG[p];
  else den *= POW10_BIG[-p];
  let q = num / den;
  const r = num % den;
  const twoR = r * BIG2;
  if (twoR > den || (twoR === den && (q & BIG1) === BIG1)) q += BIG1;
  let s: string;
  if (p > 0) {
    s = q.toString();
    if (s.length < p + 1) s = "0".repeat(p + 1 - s.length) + s;
    s = s.slice(0, s.length - p) + "." + s.slice(s.length - p);
  } else if (q === BIG0) {
    s = "0";
  } else {
    s = q.toString() + "0".repeat(-p);
  }
  return neg ? "-" + s : s;
}

/**
 * formats.md §1.1: `x` rounded to a multiple of 10^-p (ties to even) on its exact binary
 * value. A null (or NaN, the null marker of typed arrays) gives "", and so does an infinity:
 * no record value is one (uploads refuse them), but a value written into the store directly,
 * or a mean of huge values, must not fail a page or a download. p is an integer
 * (−10 … 20 for group precisions; −350 … 350 are accepted).
 */
export function formatValue(x: number | null, p: number): string {
  // x − x is NaN for NaN and ±Infinity, 0 for every finite x.
  if (x === null || x - x !== 0) return "";
  if (p >= 0 && p <= 100 && (p | 0) === p) {
    if (x < 1e21 && x > -1e21) {
      if (x === 0) return 1 / x < 0 ? "-" + POINT_ZEROS[p] : POINT_ZEROS[p];
      if (p <= 22) {
        // y = x·10^p is the exact product rounded once (10^p is exact), so
        // |y − x·10^p| ≤ |y|·2^-53. When the fraction of |y| is farther than |y|·2^-52 from
        // 1/2, rounding |y| to the nearest integer gives the same integer as rounding the
        // exact product (also when the two lie on either side of an integer).
        const y = x * POW10[p];
        const a = y < 0 ? -y : y;
        if (a < TWO52) {
          const fl = Math.floor(a);
          const fr = a - fl; // exact
          const eps = a * 2.3e-16;
          if (fr - 0.5 > eps || 0.5 - fr > eps) {
            let s = "" + (fr > 0.5 ? fl + 1 : fl);
            if (p > 0) {
              const n = s.length;
              if (n <= p) s = ZEROS[p + 1 - n] + s;
              s = s.slice(0, s.length - p) + "." + s.slice(s.length - p);
            }
            return x < 0 ? "-" + s : s;
          }
        }
      }
      const s = x.toFixed(p);
      // x is an exact tie at precision p iff x·2^(p+1) is an odd integer (the product is
      // exact: a power of two).
      const y = x * TWO_POW[p + 1];
      if (y % 2 !== 0 && Number.isInteger(y)) {
        // toFixed rounded away from zero, to k+1 where |x|·10^p = k + 1/2. Ties go to the even
        // one of k and k+1: when k+1 is odd (odd last digit), k differs only in that digit.
        const dec = DEC_DIGIT[s[s.length - 1]];
        if (dec !== undefined) return s.slice(0, -1) + dec;
      }
      return s;
    }
  } else if (p < 0 && p >= -15 && (p | 0) === p && x < TWO53 && x > -TWO53) {
    return formatNegativePrecision(x, -p);
  }
  return formatValueExact(x, p);
}

/** p = −k, 1 ≤ k ≤ 15, |x| < 2^53: integer arithmetic on doubles, every step exact. */
function formatNegativePrecision(x: number, k: number): string {
  const neg = x < 0 || (x === 0 && 1 / x < 0);
  const a = neg ? -x : x;
  const t = Math.floor(a); // exact
  const f = a - t; // exact: the fractional part of a double
  const unit = POW10[k];
  const r = t % unit; // exact, an integer in [0, unit)
  let q = (t - r) / unit; // exact: t − r is a multiple of unit below 2^53
  const half = unit / 2; // an integer since k ≥ 1
  if (r > half || (r === half && (f > 0 || q % 2 === 1))) q += 1;
  const s = q === 0 ? "0" : String(q) + ZEROS[k];
  return neg ? "-" + s : s;
}

/** The most bytes writeValueFast writes: a sign, 16 digits or "0." and 22 decimals. */
export const MAX_FAST_VALUE_BYTES = 26;

/**
 * formatValue's text when 0 ≤ p ≤ 22 and |x·10^p| < 2^52 (nearly every stored value), written
 * as ASCII bytes at `at` without making a string; the rounding of its first route, with values
 * near a tie decided on the exact product instead of by toFixed. Returns the offset after the
 * text, or −1 (nothing written) for a value that needs formatValue (NaN included). The buffer
 * must have room for MAX_FAST_VALUE_BYTES.
 */
export function writeValueFast(buf: Uint8Array, at: number, x: number, p: number): number {
  if (x !== x || !(p >= 0 && p <= 22 && (p | 0) === p)) return -1;
  const ax = x < 0 ? -x : x;
  const scale = POW10[p];
  const a = ax * scale;
  if (!(a < TWO52)) return -1;
  const fl = Math.floor(a);
  const fr = a - fl; // exact
  const eps = a * 2.3e-16;
  let q: number;
  if (fr - 0.5 > eps || 0.5 - fr > eps) {
    q = fr > 0.5 ? fl + 1 : fl;
  } else {
    // Near a tie: the exact |x|·10^p is a + err (Dekker's product: err exact, as 10^p is), and
    // fr − 0.5 is exact here, so the sign of (fr − 0.5) + err, rounded once, is that of the
    // exact distance from the midpoint fl + 1/2. Ties go to the even one.
    const d = fr - 0.5 + productError(ax, scale, a);
    q = d > 0 ? fl + 1 : d < 0 ? fl : fl % 2 === 0 ? fl : fl + 1;
  }
  if (x < 0 || (x === 0 && 1 / x < 0)) buf[at++] = 45;
  // Digits: at least p + 1 when p > 0 (leading zeros), with the point before the last p.
  let digits = 1;
  for (let v = q; v >= 10; v = Math.floor(v / 10)) digits++;
  if (p > 0 && digits <= p) digits = p + 1;
  const width = p > 0 ? digits + 1 : digits;
  let k = at + width - 1;
  const point = p > 0 ? at + digits - p : -1;
  if (q < 2147483648) {
    let v = q | 0;
    for (; k >= at; k--) {
      if (k === point) {
        buf[k] = 46;
        continue;
      }
      const r = v % 10;
      buf[k] = 48 + r;
      v = (v - r) / 10;
    }
  } else {
    for (; k >= at; k--) {
      if (k === point) {
        buf[k] = 46;
        continue;
      }
      const r = q % 10;
      buf[k] = 48 + r;
      q = (q - r) / 10;
    }
  }
  return at + width;
}

const SPLITTER = 134217729; // 2^27 + 1

/** The exact error a·b − product of the rounded product of two doubles (Dekker's TwoProduct; no overflow). */
function productError(a: number, b: number, product: number): number {
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  return ((ah * bh - product) + ah * bl + al * bh) + al * bl;
}
