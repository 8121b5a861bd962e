/** The binary COPY parser of the PostgreSQL records store, on streams built by the format's rules. */
import { describe, expect, it } from "vitest";
import { RecordCopyParser, recordCopyPieces } from "@/lib/records/pg-binary-copy";

type Row = [number, number | null, string];

/** A binary COPY stream of (bigint, double precision, text) rows, as PostgreSQL writes it. */
function copyStream(rows: Row[], extension = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(19);
  header.write("PGCOPY\n\xff\r\n\0", 0, "latin1");
  header.writeUInt32BE(0, 11);
  header.writeUInt32BE(extension.length, 15);
  const parts = [header, extension];
  for (const [t, v, f] of rows) {
    const fields = Buffer.alloc(2 + 12 + 4);
    fields.writeInt16BE(3, 0);
    fields.writeInt32BE(8, 2);
    fields.writeBigInt64BE(BigInt(t), 6);
    fields.writeInt32BE(v === null ? -1 : 8, 14);
    parts.push(fields);
    if (v !== null) {
      const value = Buffer.alloc(8);
      value.writeDoubleBE(v);
      parts.push(value);
    }
    const text = Buffer.from(f, "utf8");
    const length = Buffer.alloc(4);
    length.writeInt32BE(text.length);
    parts.push(length, text);
  }
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1);
  parts.push(trailer);
  return Buffer.concat(parts);
}

const ROWS: Row[] = [
  [-9151488000, -0.1, ""],
  [0, null, "MISSING"],
  [1577836800, 12.345678901234567, ""],
  [1577837400, Number.MAX_VALUE, "Ωμέγα 🌧"],
  [9151488000, 5e-324, "A B"],
];

function rowsOf(parser: RecordCopyParser): Row[] {
  const c = parser.chunk();
  return Array.from({ length: c.length }, (_, i) => [c.timestamps[i], Number.isNaN(c.values[i]) ? null : c.values[i], c.flags[i]]);
}

describe("RecordCopyParser", () => {
  it("reads every field exactly, nulls as NaN, flags as UTF-8", () => {
    const parser = new RecordCopyParser();
    parser.push(copyStream(ROWS));
    expect(rowsOf(parser)).toEqual(ROWS);
  });

  it("reads the same rows however the stream is cut into pieces", () => {
    const stream = copyStream(ROWS, Buffer.from("ext"));
    for (let cut = 1; cut < stream.length; cut++) {
      const parser = new RecordCopyParser();
      parser.push(stream.subarray(0, cut));
      parser.push(stream.subarray(cut));
      expect({ cut, rows: rowsOf(parser) }).toEqual({ cut, rows: ROWS });
    }
    const bytewise = new RecordCopyParser();
    for (let i = 0; i < stream.length; i++) bytewise.push(stream.subarray(i, i + 1));
    expect(rowsOf(bytewise)).toEqual(ROWS);
  });

  it("grows past its first capacity", () => {
    const many: Row[] = Array.from({ length: 5000 }, (_, i) => [i * 600, i % 7 === 0 ? null : i / 4, i % 1000 === 0 ? "F" : ""]);
    const parser = new RecordCopyParser();
    parser.push(copyStream(many));
    expect(rowsOf(parser)).toEqual(many);
  });

  it("an empty result is a header and a trailer", () => {
    const parser = new RecordCopyParser();
    parser.push(copyStream([]));
    expect(parser.chunk().length).toBe(0);
  });

  it("refuses a stream cut short, or not in the format", () => {
    const stream = copyStream(ROWS);
    const short = new RecordCopyParser();
    short.push(stream.subarray(0, stream.length - 5));
    expect(() => short.chunk()).toThrow("ended early");
    expect(() => new RecordCopyParser().push(Buffer.from("2020-01-01,1,\n".repeat(3)))).toThrow("not a binary COPY stream");
  });
});

/** The rows of a binary COPY stream of (integer, bigint, double precision, text), read by the format's rules. */
function readRows(stream: Buffer): [number, number, number | null, string][] {
  expect(stream.toString("latin1", 0, 11)).toBe("PGCOPY\n\xff\r\n\0");
  let p = 19 + stream.readUInt32BE(15);
  const rows: [number, number, number | null, string][] = [];
  for (;;) {
    const fields = stream.readInt16BE(p);
    p += 2;
    if (fields === -1) break;
    expect(fields).toBe(4);
    expect(stream.readInt32BE(p)).toBe(4);
    const series = stream.readInt32BE(p + 4);
    expect(stream.readInt32BE(p + 8)).toBe(8);
    const t = Number(stream.readBigInt64BE(p + 12));
    p += 20;
    const valueLength = stream.readInt32BE(p);
    p += 4;
    const v = valueLength === -1 ? null : stream.readDoubleBE(p);
    if (valueLength === 8) p += 8;
    const flagsLength = stream.readInt32BE(p);
    p += 4;
    rows.push([series, t, v, stream.toString("utf8", p, p + flagsLength)]);
    p += flagsLength;
  }
  expect(p).toBe(stream.length);
  return rows;
}

describe("recordCopyPieces", () => {
  it("writes the rows of the batches as binary COPY, in pieces, whatever the timestamp's sign, the value or the flags", async () => {
    const n = 30_000;
    const t = Float64Array.from({ length: n }, (_, i) => -4_102_444_800 + i * 600_000);
    const v = Float64Array.from({ length: n }, (_, i) => (i % 7 === 0 ? NaN : i % 5 === 0 ? -0.1 * i : 1e300 / (i + 1)));
    const f = Array.from({ length: n }, (_, i) => (i % 11 === 0 ? `F${i} Ä\\` : ""));
    const half = n / 2;
    const pieces: Buffer[] = [];
    for await (const piece of recordCopyPieces(42, [
      { timestamps: t.subarray(0, half), values: v.subarray(0, half), flags: f.slice(0, half) },
      { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] },
      { timestamps: t.subarray(half), values: v.subarray(half), flags: f.slice(half) },
    ])) pieces.push(Buffer.from(piece));
    expect(pieces.length).toBeGreaterThan(1);
    // Compared as text: toEqual over 30,000 rows takes seconds (over the time limit on a busy machine).
    expect(JSON.stringify(readRows(Buffer.concat(pieces)))).toBe(JSON.stringify(Array.from(t, (ti, i) => [42, ti, Number.isNaN(v[i]) ? null : v[i], f[i]])));
    const empty: Buffer[] = [];
    for await (const piece of recordCopyPieces(1, [])) empty.push(piece);
    expect(readRows(Buffer.concat(empty))).toEqual([]);
  }, 30_000);
});
