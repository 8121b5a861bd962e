/**
 * Record lines (formats.md §2.1) read as they arrive, in pieces of any size, into growing typed
 * arrays: the records of another instance's `data/` response go from its bytes to a records
 * batch without an object per record. The upload parser (lib/formats/upload.ts) reads each run
 * of whole lines, numbered on from the previous run.
 */
import { parseCanonicalRecords } from "@/lib/formats/canonical-records";
import { parseUpload } from "@/lib/formats/upload";
import type { TimeZone } from "@/lib/formats/timezone";
import type { RecordBatch } from "@/lib/records/types";

/** Lines the source sent that are not record lines in ascending time order. */
export class MalformedRecords extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

/** Text is parsed once this much has arrived (fewer, larger calls of the parser). */
const PIECE = 1 << 20;

export class RecordLineReader {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  private pending = "";
  private nextLine = 1;
  private timestamps: Float64Array = new Float64Array(0);
  private values: Float64Array = new Float64Array(0);
  private flags: string[] = [];
  private count = 0;
  private taken = 0;
  private last = -Infinity;

  /** The zone's fixed offset, for the fast path of canonical record lines (none for a zone with DST). */
  private readonly offsetSeconds: number | null;

  constructor(private readonly zone: TimeZone) {
    this.offsetSeconds = zone.fixedOffsetMinutes === null ? null : zone.fixedOffsetMinutes * 60;
  }

  /** Records read so far (taken or not). */
  get length(): number {
    return this.taken + this.count;
  }

  /** Records read and not yet taken. */
  get pendingRecords(): number {
    return this.count;
  }

  /** The next bytes of the body. */
  pushBytes(bytes: Uint8Array): void {
    let text: string;
    try {
      text = this.decoder.decode(bytes, { stream: true });
    } catch {
      throw new MalformedRecords(["the data is not UTF-8 text"]);
    }
    this.pushText(text);
  }

  pushText(text: string): void {
    this.pending += text;
    if (this.pending.length < PIECE) return;
    const cut = this.pending.lastIndexOf("\n");
    if (cut < 0) return;
    const whole = this.pending.slice(0, cut + 1);
    this.pending = this.pending.slice(cut + 1);
    this.parse(whole);
  }

  /** The records read since the last take() (all, if none), once the body has ended. */
  end(): RecordBatch {
    let rest: string;
    try {
      rest = this.decoder.decode();
    } catch {
      throw new MalformedRecords(["the data is not UTF-8 text"]);
    }
    this.parse(this.pending + rest);
    this.pending = "";
    return this.take();
  }

  /** The records read since the last take(): the reader goes on with empty arrays. */
  take(): RecordBatch {
    const batch = {
      timestamps: this.timestamps.subarray(0, this.count),
      values: this.values.subarray(0, this.count),
      flags: this.flags,
    };
    this.taken += this.count;
    this.timestamps = new Float64Array(0);
    this.values = new Float64Array(0);
    this.flags = [];
    this.count = 0;
    return batch;
  }

  private parse(text: string): void {
    if (text === "") return;
    let timestamps: Float64Array;
    let values: Float64Array;
    let flags: string[];
    const canonical = this.offsetSeconds === null ? null : parseCanonicalRecords(text, this.offsetSeconds, this.last);
    if (canonical !== null) {
      ({ timestamps, values, flags } = canonical);
      this.nextLine += canonical.lineBreaks;
    } else {
      const firstLine = this.nextLine;
      for (let k = text.indexOf("\n"); k >= 0; k = text.indexOf("\n", k + 1)) this.nextLine++;
      const parsed = parseUpload(text, this.zone, firstLine);
      if (!parsed.ok) throw new MalformedRecords(parsed.errors);
      const n = parsed.timestamps.length;
      // The parser sorts what it reads; a source's lines must already be in order.
      for (let i = 1; i < n; i++) {
        if (parsed.lines[i] < parsed.lines[i - 1]) throw new MalformedRecords([`line ${parsed.lines[i - 1]}: records out of time order`]);
      }
      if (n > 0 && parsed.timestamps[0] <= this.last) throw new MalformedRecords([`line ${parsed.lines[0]}: records out of time order`]);
      ({ timestamps, values, flags } = parsed);
    }
    const n = timestamps.length;
    if (this.count === 0) {
      // The usual case when the records are taken piece by piece: the parser's arrays as they are.
      this.timestamps = timestamps;
      this.values = values;
      this.flags = flags;
    } else {
      this.reserve(this.count + n);
      this.timestamps.set(timestamps, this.count);
      this.values.set(values, this.count);
      for (let i = 0; i < n; i++) this.flags.push(flags[i]);
    }
    this.count += n;
    if (n > 0) this.last = timestamps[n - 1];
  }

  private reserve(size: number): void {
    if (size <= this.timestamps.length) return;
    let capacity = Math.max(1 << 10, this.timestamps.length * 2);
    while (capacity < size) capacity *= 2;
    const timestamps = new Float64Array(capacity);
    timestamps.set(this.timestamps.subarray(0, this.count));
    const values = new Float64Array(capacity);
    values.set(this.values.subarray(0, this.count));
    this.timestamps = timestamps;
    this.values = values;
  }
}
