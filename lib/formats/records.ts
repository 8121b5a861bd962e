/**
 * Record lines (formats.md §2.1): `YYYY-MM-DD HH:MM,<value>,<flags>` + CR LF.
 */
import { MAX_TIMESTAMP_BYTES, type TimestampWriter } from "@/lib/formats/timestamp";
import { formatValue, MAX_FAST_VALUE_BYTES, writeValueFast } from "@/lib/formats/value";

/** The line of `bottom/` (formats.md §2.3): a record line without the CR LF. A null (or NaN) value is written empty. */
export function bottomLine(
  epochSeconds: number,
  value: number | null,
  flags: string,
  precision: number,
  fmtTimestamp: (epochSeconds: number) => string,
): string {
  return fmtTimestamp(epochSeconds) + "," + formatValue(value, precision) + "," + flags;
}

/** One record line with its CR LF. */
export function formatRecordLine(...args: Parameters<typeof bottomLine>): string {
  return bottomLine(...args) + "\r\n";
}

/**
 * Record lines `start … start+count−1` of parallel arrays as one string (a streaming chunk).
 * Values may be null or NaN for null. `flags` may be shorter than needed only if
 * missing entries are meant as "" (undefined is written as "").
 */
export function formatRecordLines(
  timestamps: ArrayLike<number>,
  values: ArrayLike<number | null>,
  flags: ArrayLike<string | null | undefined>,
  count: number,
  precision: number,
  fmtTimestamp: (epochSeconds: number) => string,
  start = 0,
): string {
  let out = "";
  const end = start + count;
  for (let i = start; i < end; i++) {
    const f = flags[i];
    out += fmtTimestamp(timestamps[i]) + "," + formatValue(values[i], precision) + "," + (f ? f : "") + "\r\n";
  }
  return out;
}

/** Room kept free for one line of the usual kind (timestamp, a value of the fast route, no flags). */
const LINE_ROOM = MAX_TIMESTAMP_BYTES + MAX_FAST_VALUE_BYTES + 8;

/**
 * formatRecordLines's text as UTF-8 bytes, written straight into a buffer: no string per line or
 * per value (most values take writeValueFast's route), and no encoding of a whole chunk's text.
 * Null values (null or NaN) are written empty; a missing flag as "".
 */
export function recordLinesBytes(
  timestamps: ArrayLike<number>,
  values: ArrayLike<number | null>,
  flags: ArrayLike<string | null | undefined>,
  count: number,
  precision: number,
  timestamp: TimestampWriter,
  start = 0,
): Buffer {
  let buf: Buffer = Buffer.allocUnsafe(count * 32 + LINE_ROOM);
  let at = 0;
  const end = start + count;
  for (let i = start; i < end; i++) {
    if (buf.length - at < LINE_ROOM) buf = grown(buf, at, LINE_ROOM);
    at = timestamp.write(buf, at, timestamps[i]);
    buf[at++] = 44;
    const v = values[i];
    if (v !== null && v === v) {
      const next = writeValueFast(buf, at, v, precision);
      if (next >= 0) {
        at = next;
      } else {
        const text = formatValue(v, precision);
        if (buf.length - at < text.length + LINE_ROOM) buf = grown(buf, at, text.length + LINE_ROOM);
        at += buf.write(text, at, "latin1");
      }
    }
    buf[at++] = 44;
    const f = flags[i];
    if (f) {
      if (buf.length - at < 3 * f.length + LINE_ROOM) buf = grown(buf, at, 3 * f.length + LINE_ROOM);
      at += buf.write(f, at, "utf8");
    }
    buf[at++] = 13;
    buf[at++] = 10;
  }
  return buf.subarray(0, at);
}

/** A larger copy of the first `used` bytes of `buf`, with at least `room` bytes free after them. */
function grown(buf: Buffer, used: number, room: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, used + room));
  buf.copy(bigger, 0, 0, used);
  return bigger;
}
