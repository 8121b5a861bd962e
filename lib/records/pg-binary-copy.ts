import type { RecordBatch, RecordChunk } from "@/lib/records/types";
import type { DayRow } from "@/lib/records/blocks";

/**
 * A parser of PostgreSQL's binary COPY format for rows of (timestamp bigint, value double
 * precision, flags text), fed the stream's buffers as they arrive. It reads numbers straight
 * from the bytes: no text to parse, no object per row, which makes reading records about twice
 * as fast as a query's result rows.
 * https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4
 */
export class RecordCopyParser {
  private pending: Buffer | null = null;
  private headerRead = false;
  private finished = false;
  private length = 0;
  private timestamps = new Float64Array(1024);
  private values = new Float64Array(1024);
  private readonly flags: string[] = [];

  /** Takes the next piece of the stream; a row split across pieces waits for the rest. */
  push(piece: Buffer): void {
    const buf = this.pending ? Buffer.concat([this.pending, piece]) : piece;
    this.pending = null;
    let p = 0;
    if (!this.headerRead) {
      // "PGCOPY\n\377\r\n\0", flags (int32), header extension length (int32) and extension.
      if (buf.length < 19) {
        this.pending = buf;
        return;
      }
      if (buf.toString("latin1", 0, 11) !== "PGCOPY\n\xff\r\n\0") throw new Error("not a binary COPY stream");
      const extension = buf.readUInt32BE(15);
      if (buf.length < 19 + extension) {
        this.pending = buf;
        return;
      }
      p = 19 + extension;
      this.headerRead = true;
    }
    while (p + 2 <= buf.length) {
      const fields = buf.readInt16BE(p);
      if (fields === -1) {
        this.finished = true;
        p += 2;
        break;
      }
      if (fields !== 3) throw new Error(`a record row of ${fields} fields`);
      const end = this.row(buf, p + 2);
      if (end < 0) break;
      p = end;
    }
    if (p < buf.length && !this.finished) this.pending = buf.subarray(p);
  }

  /** Reads the row whose fields start at `q`; its end, or −1 when the buffer holds only part of it. */
  private row(buf: Buffer, q: number): number {
    if (q + 16 > buf.length) return -1;
    // timestamp: int32 length 8, int64 (epoch seconds, far below 2^53): its two halves, without a BigInt per row.
    const timestamp = buf.readInt32BE(q + 4) * 4294967296 + buf.readUInt32BE(q + 8);
    q += 12;
    const valueLength = buf.readInt32BE(q);
    q += 4;
    let value = NaN;
    if (valueLength === 8) {
      if (q + 8 > buf.length) return -1;
      value = buf.readDoubleBE(q);
      q += 8;
    }
    if (q + 4 > buf.length) return -1;
    const flagsLength = buf.readInt32BE(q);
    q += 4;
    if (flagsLength > 0 && q + flagsLength > buf.length) return -1;
    const i = this.length++;
    if (i === this.timestamps.length) this.grow();
    this.timestamps[i] = timestamp;
    this.values[i] = value;
    if (flagsLength > 0) {
      this.flags[i] = buf.toString("utf8", q, q + flagsLength);
      q += flagsLength;
    } else {
      this.flags[i] = "";
    }
    return q;
  }

  private grow(): void {
    const timestamps = new Float64Array(this.timestamps.length * 2);
    timestamps.set(this.timestamps);
    this.timestamps = timestamps;
    const values = new Float64Array(this.values.length * 2);
    values.set(this.values);
    this.values = values;
  }

  /** The rows read, once the stream has ended with its trailer. */
  chunk(): RecordChunk {
    if (!this.finished || this.pending) throw new Error("the COPY stream ended early");
    return { timestamps: this.timestamps.subarray(0, this.length), values: this.values.subarray(0, this.length), flags: this.flags, length: this.length };
  }
}

/** Bytes of binary COPY output gathered before they are handed on. */
const COPY_PIECE = 1 << 18;
/** A row's fixed part: field count, series id, timestamp, value (flags come after). */
const FIXED_ROW = 2 + 8 + 12 + 12 + 4;
const TWO32 = 2 ** 32;

/**
 * The rows (timeseries_id, timestamp, value, flags) of the batches in PostgreSQL's binary COPY
 * format, in pieces of about 256 KB: numbers are written as their bytes, so neither this side
 * formats them as text nor the server parses them (half the work of the text format on each side).
 */
export async function* recordCopyPieces(seriesId: number, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>): AsyncGenerator<Buffer> {
  if (!Number.isSafeInteger(seriesId) || seriesId < -(2 ** 31) || seriesId >= 2 ** 31) throw new Error(`not a series id: ${seriesId}`);
  let buf = Buffer.allocUnsafe(COPY_PIECE + FIXED_ROW);
  buf.write("PGCOPY\n\xff\r\n\0", 0, "latin1");
  buf.writeInt32BE(0, 11); // flags
  buf.writeInt32BE(0, 15); // header extension length
  let p = 19;
  for await (const { timestamps, values, flags } of batches) {
    const n = timestamps.length;
    for (let i = 0; i < n; i++) {
      const f = flags[i];
      const flagBytes = f === "" ? 0 : Buffer.byteLength(f, "utf8");
      if (p + FIXED_ROW + flagBytes > buf.length) {
        yield buf.subarray(0, p);
        buf = Buffer.allocUnsafe(Math.max(COPY_PIECE, FIXED_ROW + flagBytes) + FIXED_ROW);
        p = 0;
      }
      const t = timestamps[i];
      const high = Math.floor(t / TWO32);
      buf.writeInt16BE(4, p);
      buf.writeInt32BE(4, p + 2);
      buf.writeInt32BE(seriesId, p + 6);
      buf.writeInt32BE(8, p + 10);
      buf.writeInt32BE(high, p + 14);
      buf.writeUInt32BE(t - high * TWO32, p + 18);
      p += 22;
      const v = values[i];
      if (v === v) {
        buf.writeInt32BE(8, p);
        buf.writeDoubleBE(v, p + 4);
        p += 12;
      } else {
        buf.writeInt32BE(-1, p);
        p += 4;
      }
      buf.writeInt32BE(flagBytes, p);
      p += 4;
      if (flagBytes > 0) p += buf.write(f, p, "utf8");
    }
  }
  if (p + 2 > buf.length) {
    yield buf.subarray(0, p);
    buf = Buffer.allocUnsafe(2);
    p = 0;
  }
  buf.writeInt16BE(-1, p); // trailer
  yield buf.subarray(0, p + 2);
}

/** The columns dayRowCopyPieces writes, in its order. */
export const DAY_ROW_COLUMNS = "(timeseries_id, block_start, count, value_count, min, max, sum, first_timestamp, last_timestamp, records)";

/**
 * The day rows of a series (lib/records/blocks.ts DayRow) in PostgreSQL's binary COPY format for
 * DAY_ROW_COLUMNS of timeseries_block, in pieces of about 256 KB.
 */
export async function* dayRowCopyPieces(seriesId: number, rows: Iterable<DayRowFields> | AsyncIterable<DayRowFields>): AsyncGenerator<Buffer> {
  if (!Number.isSafeInteger(seriesId) || seriesId < -(2 ** 31) || seriesId >= 2 ** 31) throw new Error(`not a series id: ${seriesId}`);
  const FIXED = 2 + 8 + 12 + 8 + 8 + 3 * 12 + 2 * 12 + 4;
  let buf = Buffer.allocUnsafe(COPY_PIECE + FIXED);
  buf.write("PGCOPY\n\xff\r\n\0", 0, "latin1");
  buf.writeInt32BE(0, 11);
  buf.writeInt32BE(0, 15);
  let p = 19;
  const int8 = (t: number) => {
    const high = Math.floor(t / TWO32);
    buf.writeInt32BE(8, p);
    buf.writeInt32BE(high, p + 4);
    buf.writeUInt32BE(t - high * TWO32, p + 8);
    p += 12;
  };
  const int4 = (v: number) => {
    buf.writeInt32BE(4, p);
    buf.writeInt32BE(v, p + 4);
    p += 8;
  };
  const float8 = (v: number | null) => {
    if (v === null) {
      buf.writeInt32BE(-1, p);
      p += 4;
    } else {
      buf.writeInt32BE(8, p);
      buf.writeDoubleBE(v, p + 4);
      p += 12;
    }
  };
  for await (const r of rows) {
    if (p + FIXED + r.records.length > buf.length) {
      yield buf.subarray(0, p);
      buf = Buffer.allocUnsafe(Math.max(COPY_PIECE, FIXED + r.records.length) + FIXED);
      p = 0;
    }
    buf.writeInt16BE(10, p);
    p += 2;
    int4(seriesId);
    int8(r.start);
    int4(r.count);
    int4(r.valueCount);
    float8(r.min);
    float8(r.max);
    float8(r.sum);
    int8(r.first);
    int8(r.last);
    buf.writeInt32BE(r.records.length, p);
    p += 4;
    buf.set(r.records, p);
    p += r.records.length;
  }
  if (p + 2 > buf.length) {
    yield buf.subarray(0, p);
    buf = Buffer.allocUnsafe(2);
    p = 0;
  }
  buf.writeInt16BE(-1, p);
  yield buf.subarray(0, p + 2);
}

/** What dayRowCopyPieces writes of a day row. */
export type DayRowFields = DayRow;
