/**
 * The records' compact, exact encoding (docs/decisions/0019-records-in-blocks.md): a day block
 * of the records store, and what the corrections history keeps. Doubles round-trip bit for bit
 * (-0 and subnormals included; every NaN is the null), flags exactly. Pure.
 *
 * A block (encodeBlock; varint: unsigned LEB128 below 2^53; zigzag: v ≥ 0 → 2v, v < 0 → −2v−1):
 *   varint n                     records (nothing follows when n = 0)
 *   timestamps: u8 mode
 *     DOD        zigzag(first − base), then n − 1 deltas of deltas (the first delta's is itself)
 *     DOD_RUNS   the same integers, each 0 followed by a varint of the further 0s that follow it
 *     RAW        n float64
 *   values: u8 mode
 *     ALL_NULL   nothing more
 *     SCALED     u8 d, nulls, then the non-null values times 10^d, exact integers: the first
 *                and then each one's difference from the one before, as integers (DOD's)
 *     SCALED_RUNS  u8 d, nulls, the same integers with runs of 0 (DOD_RUNS')
 *     XOR        nulls, then per non-null value its bits XOR the previous one's (Gorilla, by
 *                bytes): u8 0 when equal, else u8 1 + 8·(leading zero bytes) + (trailing zero
 *                bytes), followed by the bytes between, most significant first
 *     RAW        n float64 (NaN for null)
 *   nulls: varint m, then m varints: each null's index minus (the previous null's index + 1)
 *   flags: varint d, d strings (varint byte length, UTF-8): the distinct non-empty flags; varint
 *     m, then m pairs (the flagged record's index minus the previous one's + 1, the string's index)
 *
 * A value takes the scaled path when dividing round(v·10^d) by 10^d gives v back, bit for bit,
 * for the smallest d ≤ 9 that works for every value of the block (2-decimal readings: d = 2,
 * one byte for a change of up to ±0.63); anything else (computed values, -0) takes XOR.
 *
 * encodeRecords: u8 2, then a block with base 0. Version 1 (the first history encoding: the same
 * timestamps, values always RAW, the same flags) is still read.
 */
import type { RecordBatch, RecordChunk } from "@/lib/records/types";

const TS_DOD = 0;
const TS_RAW = 1;
const TS_DOD_RUNS = 2;
const V_RAW = 0;
const V_SCALED = 1;
const V_XOR = 2;
const V_ALL_NULL = 3;
const V_SCALED_RUNS = 4;

/** Below this magnitude, zigzag (about 2|v|) stays an exact double. */
const ZIGZAG_LIMIT = 2 ** 51;
/** Scaled integers stay below this, so that their differences do too. */
const SCALED_LIMIT = 2 ** 49;
const MAX_DECIMALS = 9;
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/** A growing byte buffer. */
export class ByteWriter {
  private bytes: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

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
    if (v < 0x80000000) {
      while (v >= 0x80) {
        bytes[at++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
    } else {
      while (v >= 0x80) {
        bytes[at++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
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

  reset(): this {
    this.length = 0;
    return this;
  }
}

/** Reads what ByteWriter wrote; throws on bytes that end early or do not make sense. */
export class ByteReader {
  private readonly view: DataView;
  at: number;

  constructor(private readonly bytes: Uint8Array, at = 0) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = at;
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new Error("records encoding: the bytes end early");
  }

  u8(): number {
    if (this.at >= this.bytes.length) throw new Error("records encoding: the bytes end early");
    return this.bytes[this.at++];
  }

  varint(): number {
    const bytes = this.bytes;
    let at = this.at;
    if (at >= bytes.length) throw new Error("records encoding: the bytes end early");
    let b = bytes[at++];
    if (b < 0x80) {
      this.at = at;
      return b;
    }
    let v = b & 0x7f;
    let scale = 0x80;
    for (;;) {
      if (at >= bytes.length) throw new Error("records encoding: the bytes end early");
      b = bytes[at++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new Error("records encoding: a number is too long");
    }
    this.at = at;
    return v;
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

  byte(i: number): number {
    return this.bytes[i];
  }

  get length(): number {
    return this.bytes.length;
  }

  get done(): boolean {
    return this.at === this.bytes.length;
  }
}

let SCRATCH = new Float64Array(1024);

/** A reused array of at least n numbers (the encoder's integers before they are written). */
function scratch(n: number): Float64Array {
  if (SCRATCH.length < n) SCRATCH = new Float64Array(Math.max(n, 2 * SCRATCH.length));
  return SCRATCH;
}

function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : Math.ceil(Math.log2(v + 1) / 7);
}

const zigzagOf = (v: number) => (v < 0 ? -2 * v - 1 : 2 * v);

/** Whether integers (each below ZIGZAG_LIMIT in magnitude) are shorter as zigzag varints with runs of zeros than without. */
function shorterWithRuns(ints: Float64Array, n: number): boolean {
  let plain = 0;
  let runs = 0;
  for (let i = 0; i < n;) {
    const v = ints[i];
    if (v !== 0) {
      const size = varintSize(zigzagOf(v));
      plain += size;
      runs += size;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && ints[j] === 0) j++;
    plain += j - i;
    runs += 1 + varintSize(j - i - 1);
    i = j;
  }
  return runs < plain;
}

/** Writes integers as zigzag varints; with `runs`, each 0 is followed by a varint of the further 0s that follow it. */
function writeIntegers(out: ByteWriter, ints: Float64Array, n: number, runs: boolean): void {
  if (!runs) {
    for (let i = 0; i < n; i++) out.zigzag(ints[i]);
    return;
  }
  for (let i = 0; i < n;) {
    const v = ints[i];
    if (v !== 0) {
      out.zigzag(v);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && ints[j] === 0) j++;
    out.u8(0);
    out.varint(j - i - 1);
    i = j;
  }
}

/** Reads the integers writeIntegers wrote, one at a time. */
class IntegerStream {
  private zeros = 0;

  constructor(private readonly input: ByteReader, private readonly runs: boolean) {}

  next(): number {
    if (this.zeros > 0) {
      this.zeros--;
      return 0;
    }
    const v = this.input.zigzag();
    if (v === 0 && this.runs) this.zeros = this.input.varint();
    return v;
  }

  /** After the last: a run must not go on past it. */
  end(): void {
    if (this.zeros > 0) throw new Error("records encoding: a run past the end");
  }
}

/** The deltas of deltas of the timestamps (the first relative to base), or null when they are not all small integers. */
function deltasOfDeltas(timestamps: Float64Array, n: number, base: number): Float64Array | null {
  const out = scratch(n);
  let previous = base;
  let previousDelta = 0;
  for (let i = 0; i < n; i++) {
    const t = timestamps[i];
    if (!Number.isSafeInteger(t)) return null;
    const delta = t - previous;
    const dod = i === 0 ? delta : delta - previousDelta;
    if (!(Math.abs(delta) < ZIGZAG_LIMIT && Math.abs(dod) < ZIGZAG_LIMIT)) return null;
    out[i] = dod;
    if (i > 0) previousDelta = delta;
    previous = t;
  }
  return out;
}

function encodeTimestamps(out: ByteWriter, timestamps: Float64Array, n: number, base: number): void {
  const dods = Number.isSafeInteger(base) ? deltasOfDeltas(timestamps, n, base) : null;
  if (dods === null) {
    out.u8(TS_RAW);
    for (let i = 0; i < n; i++) out.f64(timestamps[i]);
    return;
  }
  const runs = shorterWithRuns(dods, n);
  out.u8(runs ? TS_DOD_RUNS : TS_DOD);
  writeIntegers(out, dods, n, runs);
}

function decodeTimestamps(input: ByteReader, n: number, base: number, into: Float64Array, at: number, mode = input.u8()): void {
  if (mode === TS_RAW) {
    for (let i = at; i < at + n; i++) into[i] = input.f64();
    return;
  }
  if (mode !== TS_DOD && mode !== TS_DOD_RUNS) throw new Error(`records encoding: unknown timestamps mode ${mode}`);
  const ints = new IntegerStream(input, mode === TS_DOD_RUNS);
  let t = base + ints.next();
  into[at] = t;
  let delta = 0;
  for (let i = at + 1; i < at + n; i++) {
    delta += ints.next();
    t += delta;
    into[i] = t;
  }
  ints.end();
}

/** The smallest d ≤ MAX_DECIMALS for which every value is round(v·10^d)/10^d exactly, or -1. */
function decimalsOf(values: Float64Array, n: number): number {
  let d = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== v) continue;
    if (v === 0 && 1 / v < 0) return -1;
    for (;;) {
      const p = POW10[d];
      const k = Math.round(v * p);
      if (k / p === v && Math.abs(k) < SCALED_LIMIT) break;
      if (++d > MAX_DECIMALS) return -1;
    }
  }
  // A value that was exact with fewer decimals need not be with more: check them all with d.
  const p = POW10[d];
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === v && Math.round(v * p) / p !== v) return -1;
  }
  return d;
}

function writeNulls(out: ByteWriter, values: Float64Array, n: number, nulls: number): void {
  out.varint(nulls);
  if (nulls === 0) return;
  let next = 0;
  for (let i = 0; i < n; i++) {
    if (values[i] === values[i]) continue;
    out.varint(i - next);
    next = i + 1;
  }
}

/** Reads the nulls' positions into `values` (NaN from `at` on), returning how many there are. */
function readNulls(input: ByteReader, values: Float64Array, at: number, n: number): number {
  const m = input.varint();
  if (m > n) throw new Error("records encoding: more nulls than records");
  let next = 0;
  for (let k = 0; k < m; k++) {
    const i = next + input.varint();
    if (i >= n) throw new Error("records encoding: a null out of range");
    values[at + i] = NaN;
    next = i + 1;
  }
  return m;
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const LITTLE = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
const HI = LITTLE ? 1 : 0;
const LO = 1 - HI;

function encodeValues(out: ByteWriter, values: Float64Array, n: number): void {
  let nulls = 0;
  for (let i = 0; i < n; i++) if (values[i] !== values[i]) nulls++;
  if (nulls === n) {
    out.u8(V_ALL_NULL);
    return;
  }
  const d = decimalsOf(values, n);
  if (d >= 0) {
    const p = POW10[d];
    const deltas = scratch(n - nulls);
    let previous = 0;
    for (let i = 0, k = 0; i < n; i++) {
      const v = values[i];
      if (v !== v) continue;
      const scaled = Math.round(v * p);
      deltas[k++] = scaled - previous;
      previous = scaled;
    }
    const runs = shorterWithRuns(deltas, n - nulls);
    out.u8(runs ? V_SCALED_RUNS : V_SCALED);
    out.u8(d);
    writeNulls(out, values, n, nulls);
    writeIntegers(out, deltas, n - nulls, runs);
    return;
  }
  out.u8(V_XOR);
  writeNulls(out, values, n, nulls);
  let previousHi = 0;
  let previousLo = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== v) continue;
    F64[0] = v;
    const hi = U32[HI];
    const lo = U32[LO];
    const xh = (hi ^ previousHi) >>> 0;
    const xl = (lo ^ previousLo) >>> 0;
    previousHi = hi;
    previousLo = lo;
    if (xh === 0 && xl === 0) {
      out.u8(0);
      continue;
    }
    // The 8 bytes of the XOR, most significant first; leading and trailing zero bytes dropped.
    let leading = 0;
    while (leading < 8 && byteOf(xh, xl, leading) === 0) leading++;
    let trailing = 0;
    while (trailing < 8 && byteOf(xh, xl, 7 - trailing) === 0) trailing++;
    out.u8(1 + 8 * leading + trailing);
    for (let b = leading; b < 8 - trailing; b++) out.u8(byteOf(xh, xl, b));
  }
}

/** Byte b (0 = most significant) of the 64-bit number hi·2^32 + lo. */
function byteOf(hi: number, lo: number, b: number): number {
  return b < 4 ? (hi >>> (24 - 8 * b)) & 0xff : (lo >>> (56 - 8 * b)) & 0xff;
}

function decodeValues(input: ByteReader, n: number, values: Float64Array, at: number): void {
  const end = at + n;
  const mode = input.u8();
  switch (mode) {
    case V_ALL_NULL:
      values.fill(NaN, at, end);
      return;
    case V_RAW:
      for (let i = at; i < end; i++) {
        const v = input.f64();
        values[i] = v === v ? v : NaN;
      }
      return;
    case V_SCALED:
    case V_SCALED_RUNS: {
      const d = input.u8();
      if (d > MAX_DECIMALS) throw new Error(`records encoding: ${d} decimals`);
      const p = POW10[d];
      values.fill(0, at, end);
      readNulls(input, values, at, n);
      const ints = new IntegerStream(input, mode === V_SCALED_RUNS);
      let scaled = 0;
      for (let i = at; i < end; i++) {
        if (values[i] !== values[i]) continue;
        scaled += ints.next();
        values[i] = scaled / p;
      }
      ints.end();
      return;
    }
    case V_XOR: {
      values.fill(0, at, end);
      readNulls(input, values, at, n);
      let hi = 0;
      let lo = 0;
      for (let i = at; i < end; i++) {
        if (values[i] !== values[i]) continue;
        const control = input.u8();
        if (control !== 0) {
          const leading = (control - 1) >> 3;
          const trailing = (control - 1) & 7;
          if (control > 64 || leading + trailing > 8) throw new Error("records encoding: a bad XOR control byte");
          let xh = 0;
          let xl = 0;
          for (let b = leading; b < 8 - trailing; b++) {
            const byte = input.u8();
            if (b < 4) xh |= byte << (24 - 8 * b);
            else xl |= byte << (56 - 8 * b);
          }
          hi = (hi ^ xh) >>> 0;
          lo = (lo ^ xl) >>> 0;
        }
        U32[HI] = hi;
        U32[LO] = lo;
        values[i] = F64[0];
      }
      return;
    }
    default:
      throw new Error(`records encoding: unknown values mode ${mode}`);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function encodeFlags(out: ByteWriter, flags: readonly string[], n: number): void {
  let flagged = 0;
  for (let i = 0; i < n; i++) if (flags[i] !== "") flagged++;
  if (flagged === 0) {
    out.u8(0);
    out.u8(0);
    return;
  }
  const ids = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const f = flags[i];
    if (f !== "" && !ids.has(f)) ids.set(f, ids.size);
  }
  out.varint(ids.size);
  for (const f of ids.keys()) {
    if (typeof f !== "string") throw new TypeError("records encoding: flags must be strings");
    const bytes = encoder.encode(f);
    out.varint(bytes.length);
    out.raw(bytes);
  }
  out.varint(flagged);
  let next = 0;
  for (let i = 0; i < n; i++) {
    const f = flags[i];
    if (f === "") continue;
    out.varint(i - next);
    out.varint(ids.get(f)!);
    next = i + 1;
  }
}

/** Reads the flags into `flags` from `at` on, which must hold "" for the block's records. */
function decodeFlags(input: ByteReader, n: number, flags: string[], at: number): void {
  const d = input.varint();
  if (d === 0) {
    if (input.varint() !== 0) throw new Error("records encoding: flags without their strings");
    return;
  }
  if (d > n) throw new Error("records encoding: more flag strings than records");
  const texts: string[] = [];
  while (texts.length < d) texts.push(decoder.decode(input.raw(input.varint())));
  let next = 0;
  for (let m = input.varint(), k = 0; k < m; k++) {
    const i = next + input.varint();
    const id = input.varint();
    if (i >= n || id >= texts.length) throw new Error("records encoding: a flag out of range");
    flags[at + i] = texts[id];
    next = i + 1;
  }
}

function checkBatch(batch: RecordBatch): number {
  const n = batch.timestamps.length;
  if (batch.values.length !== n || batch.flags.length !== n) throw new Error("records encoding: the batch's arrays differ in length");
  return n;
}

/** Writes a block of the records (the layout above), timestamps relative to `base`. */
export function writeBlock(out: ByteWriter, batch: RecordBatch, base: number): void {
  const n = checkBatch(batch);
  out.varint(n);
  if (n === 0) return;
  encodeTimestamps(out, batch.timestamps, n, base);
  encodeValues(out, batch.values, n);
  encodeFlags(out, batch.flags, n);
}

const WRITER = new ByteWriter(1 << 16);

/** The records as a block, timestamps relative to `base` (a day block's start). */
export function encodeBlock(batch: RecordBatch, base: number): Uint8Array {
  writeBlock(WRITER.reset(), batch, base);
  return WRITER.result();
}

/** Where readBlockInto writes a block's records: room from `at` on, flags "" there. */
export interface RecordsTarget {
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly flags: string[];
}

/** Reads the block at the reader's position into `into` from `at` on; returns the number of records. */
export function readBlockInto(input: ByteReader, base: number, into: RecordsTarget, at: number): number {
  const n = input.varint();
  if (n === 0) return 0;
  if (at + n > into.timestamps.length) throw new Error("records encoding: more records than room for them");
  decodeTimestamps(input, n, base, into.timestamps, at);
  decodeValues(input, n, into.values, at);
  decodeFlags(input, n, into.flags, at);
  return n;
}

/** Reads a block at the reader's position. */
export function readBlock(input: ByteReader, base: number): RecordChunk {
  const start = input.at;
  const n = input.varint();
  if (n > 2 ** 31) throw new Error("records encoding: too many records");
  input.at = start;
  const into = { timestamps: new Float64Array(n), values: new Float64Array(n), flags: new Array<string>(n).fill("") };
  readBlockInto(input, base, into, 0);
  return { ...into, length: n };
}

/** The records of a block that encodeBlock wrote with the same `base`. */
export function decodeBlock(bytes: Uint8Array, base: number): RecordChunk {
  const input = new ByteReader(bytes);
  const chunk = readBlock(input, base);
  if (!input.done) throw new Error("records encoding: bytes after the records");
  return chunk;
}

/** The number of records of a block, without decoding it. */
export function blockLength(bytes: Uint8Array): number {
  return new ByteReader(bytes).varint();
}

const RECORDS_V1 = 1;
const RECORDS_V2 = 2;

/** The records as bytes (u8 2, then a block with base 0). Timestamps must be sorted; any numbers round-trip. */
export function encodeRecords(batch: RecordBatch): Uint8Array {
  const out = WRITER.reset();
  out.u8(RECORDS_V2);
  writeBlock(out, batch, 0);
  return out.result();
}

/** The records encodeRecords encoded (either version). */
export function decodeRecords(bytes: Uint8Array): RecordBatch {
  const input = new ByteReader(bytes);
  const version = input.u8();
  let chunk: RecordChunk;
  if (version === RECORDS_V2) {
    chunk = readBlock(input, 0);
  } else if (version === RECORDS_V1) {
    const n = input.varint();
    if (n > bytes.length) throw new Error("records encoding: more records than bytes");
    chunk = { timestamps: new Float64Array(n), values: new Float64Array(n), flags: new Array<string>(n).fill(""), length: n };
    if (n > 0) {
      decodeTimestamps(input, n, 0, chunk.timestamps, 0, v1Timestamps(input.u8()));
      if (input.u8() !== V_RAW) throw new Error("records encoding: unknown values mode");
      for (let i = 0; i < n; i++) {
        const v = input.f64();
        chunk.values[i] = v === v ? v : NaN;
      }
      decodeFlags(input, n, chunk.flags, 0);
    }
  } else {
    throw new Error(`records encoding: unknown version ${version}`);
  }
  if (!input.done) throw new Error("records encoding: bytes after the records");
  return { timestamps: chunk.timestamps, values: chunk.values, flags: chunk.flags };
}

/** Version 1's timestamp modes: 0 deltas of deltas, 1 float64. */
function v1Timestamps(mode: number): number {
  if (mode === 0) return TS_DOD;
  if (mode === 1) return TS_RAW;
  throw new Error(`records encoding: unknown timestamps mode ${mode}`);
}
