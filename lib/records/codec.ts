/**
 * A compact, exact encoding of a RecordBatch: timestamps delta-of-delta, values and flags each
 * in a section that says how it is encoded. Doubles round-trip bit for bit (-0 included; every
 * NaN is the null), flags exactly. Pure: the corrections history stores what a correction
 * removed with it.
 *
 * Layout (varint: unsigned LEB128 up to 2^53; zigzag maps ±v to 2|v| or 2|v|−1):
 *   u8 0x01                  the layout's version
 *   varint n                 the number of records; when n > 0:
 *   u8 timestamps' mode      0: zigzag varint of the first, then of each delta-of-delta
 *                               (the first delta counts as one); 1: n float64
 *   u8 values' mode          0: n float64 (little-endian, NaN canonical)
 *   flags                    varint d, then d strings (varint byte length, UTF-8): the distinct
 *                            non-empty flags; varint m, then m pairs (varint gap to the record's
 *                            index from the previous one's + 1, varint index into the strings)
 */
import type { RecordBatch } from "@/lib/records/types";

const VERSION = 1;
const TIMESTAMPS_DELTAS = 0;
const TIMESTAMPS_RAW = 1;
const VALUES_RAW = 0;
/** Below this magnitude zigzag (2|v|) stays an exact double. */
const ZIGZAG_LIMIT = 2 ** 51;

/** A growing byte buffer. */
export class ByteWriter {
  private bytes = new Uint8Array(256);
  private view = new DataView(this.bytes.buffer);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(b: number): void {
    this.room(1);
    this.bytes[this.length++] = b;
  }

  /** A non-negative integer below 2^53. */
  varint(v: number): void {
    this.room(8);
    const bytes = this.bytes;
    let at = this.length;
    while (v >= 0x80) {
      bytes[at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    bytes[at++] = v;
    this.length = at;
  }

  zigzag(v: number): void {
    this.varint(v < 0 ? -2 * v - 1 : 2 * v);
  }

  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  raw(b: Uint8Array): void {
    this.room(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }

  result(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Reads what ByteWriter wrote; throws on bytes that end early. */
export class ByteReader {
  private readonly view: DataView;
  at = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new Error("records encoding: the bytes end early");
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.at++];
  }

  varint(): number {
    const bytes = this.bytes;
    let v = 0;
    let scale = 1;
    for (;;) {
      if (this.at >= bytes.length) throw new Error("records encoding: the bytes end early");
      const b = bytes[this.at++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new Error("records encoding: a number is too long");
    }
  }

  zigzag(): number {
    const z = this.varint();
    return z % 2 === 1 ? -(z + 1) / 2 : z / 2;
  }

  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }

  raw(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  get done(): boolean {
    return this.at === this.bytes.length;
  }
}

/** Whether the timestamps' deltas and deltas of deltas are all integers that zigzag keeps exact. */
function deltasFit(timestamps: Float64Array): boolean {
  let previousDelta = 0;
  for (let i = 0; i < timestamps.length; i++) {
    const t = timestamps[i];
    if (!Number.isSafeInteger(t)) return false;
    const delta = i === 0 ? t : t - timestamps[i - 1];
    const dod = delta - previousDelta;
    if (Math.abs(delta) >= ZIGZAG_LIMIT || Math.abs(dod) >= ZIGZAG_LIMIT) return false;
    previousDelta = i === 0 ? 0 : delta;
  }
  return true;
}

export function encodeTimestamps(out: ByteWriter, timestamps: Float64Array): void {
  if (!deltasFit(timestamps)) {
    out.u8(TIMESTAMPS_RAW);
    for (const t of timestamps) out.f64(t);
    return;
  }
  out.u8(TIMESTAMPS_DELTAS);
  let previous = 0;
  let previousDelta = 0;
  for (let i = 0; i < timestamps.length; i++) {
    const t = timestamps[i];
    const delta = t - previous;
    out.zigzag(i === 0 ? t : delta - previousDelta);
    if (i > 0) previousDelta = delta;
    previous = t;
  }
}

export function decodeTimestamps(input: ByteReader, n: number): Float64Array {
  const timestamps = new Float64Array(n);
  const mode = input.u8();
  if (mode === TIMESTAMPS_RAW) {
    for (let i = 0; i < n; i++) timestamps[i] = input.f64();
    return timestamps;
  }
  if (mode !== TIMESTAMPS_DELTAS) throw new Error(`records encoding: unknown timestamps mode ${mode}`);
  let previous = 0;
  let delta = 0;
  for (let i = 0; i < n; i++) {
    const z = input.zigzag();
    if (i === 0) {
      previous = z;
    } else {
      delta = i === 1 ? z : delta + z;
      previous += delta;
    }
    timestamps[i] = previous;
  }
  return timestamps;
}

export function encodeFlags(out: ByteWriter, flags: readonly string[]): void {
  const ids = new Map<string, number>();
  const flagged: number[] = [];
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i];
    if (f === "") continue;
    if (!ids.has(f)) ids.set(f, ids.size);
    flagged.push(i);
  }
  const encoder = new TextEncoder();
  out.varint(ids.size);
  for (const f of ids.keys()) {
    const bytes = encoder.encode(f);
    out.varint(bytes.length);
    out.raw(bytes);
  }
  out.varint(flagged.length);
  let next = 0;
  for (const i of flagged) {
    out.varint(i - next);
    out.varint(ids.get(flags[i])!);
    next = i + 1;
  }
}

export function decodeFlags(input: ByteReader, n: number): string[] {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const texts: string[] = [];
  for (let d = input.varint(); texts.length < d;) texts.push(decoder.decode(input.raw(input.varint())));
  const flags: string[] = new Array(n).fill("");
  let next = 0;
  for (let m = input.varint(), k = 0; k < m; k++) {
    const i = next + input.varint();
    const id = input.varint();
    if (i >= n || id >= texts.length) throw new Error("records encoding: a flag out of range");
    flags[i] = texts[id];
    next = i + 1;
  }
  return flags;
}

/** The records as bytes (the layout above). Timestamps must be sorted; any numbers round-trip. */
export function encodeRecords(batch: RecordBatch): Uint8Array {
  const { timestamps, values, flags } = batch;
  const n = timestamps.length;
  if (values.length !== n || flags.length !== n) throw new Error("encodeRecords: the batch's arrays differ in length");
  const out = new ByteWriter();
  out.u8(VERSION);
  out.varint(n);
  if (n === 0) return out.result();
  encodeTimestamps(out, timestamps);
  out.u8(VALUES_RAW);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    out.f64(v === v ? v : NaN);
  }
  encodeFlags(out, flags);
  return out.result();
}

/** The records encodeRecords encoded. */
export function decodeRecords(bytes: Uint8Array): RecordBatch {
  const input = new ByteReader(bytes);
  const version = input.u8();
  if (version !== VERSION) throw new Error(`records encoding: unknown version ${version}`);
  const n = input.varint();
  if (n === 0) return { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };
  if (n > bytes.length) throw new Error("records encoding: more records than bytes");
  const timestamps = decodeTimestamps(input, n);
  const mode = input.u8();
  if (mode !== VALUES_RAW) throw new Error(`records encoding: unknown values mode ${mode}`);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = input.f64();
  const flags = decodeFlags(input, n);
  if (!input.done) throw new Error("records encoding: bytes after the records");
  return { timestamps, values, flags };
}
