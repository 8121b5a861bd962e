/**
 * formats.md §1.2, the reference algorithm, written out independently of lib/formats/value.ts
 * so that tests compare the service against the spec: half-to-even rounding of the exact binary
 * value at precision p (negative p rounds to tens, hundreds…). A null value is written empty.
 */
export function referenceValue(x: number | null, p: number): string {
  if (x === null) return "";
  const neg = x < 0 || Object.is(x, -0);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const m = exponent === 0 ? fraction : fraction | (1n << 52n);
  const e = exponent === 0 ? -1074 : exponent - 1075;
  let num = m;
  let den = 1n;
  if (e >= 0) num *= 1n << BigInt(e); else den = 1n << BigInt(-e);
  if (p >= 0) num *= 10n ** BigInt(p); else den *= 10n ** BigInt(-p);
  let q = num / den;
  const r = num % den;
  if (2n * r > den || (2n * r === den && q % 2n === 1n)) q += 1n;
  let s: string;
  if (p > 0) {
    const digits = q.toString().padStart(p + 1, "0");
    s = `${digits.slice(0, digits.length - p)}.${digits.slice(digits.length - p)}`;
  } else {
    s = (q * 10n ** BigInt(-p)).toString();
  }
  return (neg ? "-" : "") + s;
}
