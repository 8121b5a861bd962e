/**
 * The shortest decimal that reads back to the same double, in plain notation (never an
 * exponent): the number form of `geom` output, CSV coordinates and altitudes (api.md §4.2).
 * `String(x)` already gives the shortest round-trip digits; only its exponent form
 * (|x| >= 1e21 or < 1e-6) needs rewriting.
 */
export function plainNumber(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  if (Object.is(x, -0)) return "0";
  const text = String(x);
  const e = text.indexOf("e");
  if (e < 0) return text;
  const negative = text.startsWith("-");
  const mantissa = text.slice(negative ? 1 : 0, e);
  const exponent = Number(text.slice(e + 1));
  const point = mantissa.indexOf(".");
  const digits = point < 0 ? mantissa : mantissa.slice(0, point) + mantissa.slice(point + 1);
  const integerDigits = (point < 0 ? mantissa.length : point) + exponent;
  let plain: string;
  if (integerDigits <= 0) plain = "0." + "0".repeat(-integerDigits) + digits;
  else if (integerDigits >= digits.length) plain = digits + "0".repeat(integerDigits - digits.length);
  else plain = digits.slice(0, integerDigits) + "." + digits.slice(integerDigits);
  return (negative ? "-" : "") + plain;
}
