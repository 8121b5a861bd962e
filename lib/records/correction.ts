/**
 * The part of RecordsStore.correct that both stores share: given the stored records of the
 * whole days holding a correction's range, check what the plan's `change` asks for, work out
 * the outcome (what was and what is), and the daily blocks of the days it touches. Pure.
 */
import { MAX_INSTANT, MIN_INSTANT } from "@/lib/formats/date-param";
import { flagsTooLong, MAX_FLAGS_LENGTH } from "@/lib/formats/upload";
import {
  type BatchBlocks, BlockBuilder, blockStart, type CorrectionOutcome, type CorrectionPlan, DAY, type RecordBatch, type RecordChunk,
} from "@/lib/records/types";

/** What a store writes to apply a correction. */
export interface AppliedCorrection {
  readonly outcome: CorrectionOutcome;
  /** Stored timestamps to delete (sorted). */
  readonly remove: Float64Array;
  /** The days it touches that still have records, with their records afterwards (in order); and those left without any. */
  readonly days: { readonly start: number; readonly records: RecordBatch }[];
  readonly emptiedDays: number[];
  /** The summaries of `days`, computed from their records. */
  readonly blocks: BatchBlocks;
  /** The change of the series' record count. */
  readonly countDelta: number;
}

/**
 * The stored records a correction of [from, to] reads: those of the whole UTC days that hold
 * its range (so that the blocks of the days it touches can be computed again), as safe integers.
 */
export function correctionSpan(from: number, to: number): { lo: number; hi: number } {
  if (Number.isNaN(from) || Number.isNaN(to)) throw new Error(`correct: not a range: [${from}, ${to}]`);
  const clamp = (t: number) => Math.min(Math.max(t, -Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  return { lo: clamp(blockStart(clamp(Math.ceil(from)))), hi: clamp(blockStart(clamp(Math.floor(to))) + DAY - 1) };
}

const EMPTY: RecordBatch = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };

/** The ISO form of a timestamp, for messages. */
function iso(t: number): string {
  const d = new Date(t * 1000);
  return Number.isNaN(d.getTime()) ? String(t) : d.toISOString().replace(".000Z", "Z");
}

/** The first index of `timestamps` whose timestamp is ≥ t. */
function lowerBound(timestamps: Float64Array, t: number, length = timestamps.length): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timestamps[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Applies `plan` to `span`, the stored records of correctionSpan(plan.from, plan.to): hands its
 * `change` the records of [from, to], checks the change, and returns what to write, or the
 * errors that refuse it (the plan's own, a timestamp outside the store's range, a value that is
 * not finite). A change that breaks CorrectionChange's rules throws.
 */
export function applyCorrection(span: RecordChunk, plan: CorrectionPlan): AppliedCorrection | { errors: string[] } {
  const n = span.length;
  const start = lowerBound(span.timestamps, plan.from, n);
  const end = lowerBound(span.timestamps, Math.floor(plan.to) + 1, n);
  const current: RecordBatch = {
    timestamps: span.timestamps.subarray(start, end), values: span.values.subarray(start, end), flags: span.flags.slice(start, end),
  };
  const change = plan.change(current);
  if ("errors" in change) {
    if (change.errors.length === 0) throw new Error("correct: the change was refused without a message");
    return { errors: change.errors };
  }
  const upsert = change.upsert ?? EMPTY;
  const m = upsert.timestamps.length;
  if (upsert.values.length !== m || upsert.flags.length !== m) throw new Error("correct: the upsert's arrays differ in length");
  const errors: string[] = [];
  const values = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const t = upsert.timestamps[j];
    if (!Number.isSafeInteger(t)) throw new Error(`correct: not an integer timestamp: ${t}`);
    if (t < MIN_INSTANT || t > MAX_INSTANT) {
      errors.push(`${iso(t)} is outside 1680-01-01 to 2260-01-01`);
      continue;
    }
    if (j > 0 && !(t > upsert.timestamps[j - 1])) throw new Error(`correct: the upsert is not sorted at ${t}`);
    if (t < plan.from || t > plan.to) throw new Error(`correct: the upsert's ${t} is outside [${plan.from}, ${plan.to}]`);
    if (typeof upsert.flags[j] !== "string") throw new Error(`correct: the flags at ${t} are not a string`);
    const v = upsert.values[j];
    if (v === Infinity || v === -Infinity) errors.push(`the value at ${iso(t)} is not a finite number`);
    // Flags a transform added to: no longer than an upload may write them, so the data/ text uploads again.
    if (flagsTooLong(upsert.flags[j])) errors.push(`the flags at ${iso(t)} are longer than ${MAX_FLAGS_LENGTH} characters`);
    // As uploads store them: -0 is 0 (formats.md §6.3), any NaN the null.
    values[j] = v === 0 ? 0 : v === v ? v : NaN;
  }
  if (errors.length) return { errors: errors.slice(0, 10) };
  const remove = Float64Array.from(change.remove ?? []).sort();

  // One pass over the span, the upsert and the removals (all sorted) gives both images, the
  // span's records afterwards, and the count's change.
  const capacity = n + m;
  const merged = { timestamps: new Float64Array(capacity), values: new Float64Array(capacity), flags: new Array<string>(capacity) };
  const before: { timestamps: number[]; values: number[]; flags: string[] } = { timestamps: [], values: [], flags: [] };
  const written: { timestamps: number[]; values: number[]; flags: string[] } = { timestamps: [], values: [], flags: [] };
  let length = 0;
  let countDelta = 0;
  let i = 0;
  let j = 0;
  let k = 0;
  const keep = (t: number, v: number, f: string) => {
    merged.timestamps[length] = t;
    merged.values[length] = v;
    merged.flags[length++] = f;
  };
  while (i < n || j < m) {
    const s = i < n ? span.timestamps[i] : Infinity;
    const u = j < m ? upsert.timestamps[j] : Infinity;
    if (u < s) {
      if (k < remove.length && remove[k] === u) throw new Error(`correct: ${u} is both removed and upserted`);
      written.timestamps.push(u);
      written.values.push(values[j]);
      written.flags.push(upsert.flags[j]);
      keep(u, values[j], upsert.flags[j]);
      countDelta++;
      j++;
      continue;
    }
    const v = span.values[i];
    const f = span.flags[i];
    if (u === s) {
      if (k < remove.length && remove[k] === u) throw new Error(`correct: ${u} is both removed and upserted`);
      const nv = values[j];
      const nf = upsert.flags[j];
      if (!(nv === v || (nv !== nv && v !== v)) || nf !== f) {
        before.timestamps.push(s);
        before.values.push(v);
        before.flags.push(f);
        written.timestamps.push(u);
        written.values.push(nv);
        written.flags.push(nf);
      }
      keep(u, nv, nf);
      i++;
      j++;
      continue;
    }
    while (k < remove.length && remove[k] < s) {
      throw new Error(`correct: ${remove[k]} is not a stored timestamp of [${plan.from}, ${plan.to}]`);
    }
    if (k < remove.length && remove[k] === s) {
      if (i < start || i >= end) throw new Error(`correct: ${s} is outside [${plan.from}, ${plan.to}]`);
      before.timestamps.push(s);
      before.values.push(v);
      before.flags.push(f);
      countDelta--;
      k++;
    } else {
      keep(s, v, f);
    }
    i++;
  }
  if (k < remove.length) throw new Error(`correct: ${remove[k]} is not a stored timestamp of [${plan.from}, ${plan.to}]`);

  const beforeBatch = batchOf(before);
  const writtenBatch = batchOf(written);
  const first = Math.min(before.timestamps[0] ?? Infinity, written.timestamps[0] ?? Infinity);
  const last = Math.max(before.timestamps.at(-1) ?? -Infinity, written.timestamps.at(-1) ?? -Infinity);

  // The days touched, and their blocks computed from their records afterwards (as one write of
  // them would compute them: BlockBuilder, in timestamp order).
  const days = new Set<number>();
  for (const t of before.timestamps) days.add(blockStart(t));
  for (const t of written.timestamps) days.add(blockStart(t));
  const builder = new BlockBuilder();
  const touched: { start: number; records: RecordBatch }[] = [];
  if (days.size > 0) {
    let a = 0;
    while (a < length) {
      const day = blockStart(merged.timestamps[a]);
      let b = a + 1;
      while (b < length && merged.timestamps[b] < day + DAY) b++;
      if (days.has(day)) {
        const records = { timestamps: merged.timestamps.subarray(a, b), values: merged.values.subarray(a, b), flags: merged.flags.slice(a, b) };
        touched.push({ start: day, records });
        builder.add(records);
      }
      a = b;
    }
  }
  const blocks = builder.blocks();
  const kept = new Set(blocks.starts);
  return {
    outcome: { before: beforeBatch, written: writtenBatch, first: first === Infinity ? null : first, last: last === -Infinity ? null : last },
    remove,
    days: touched,
    blocks,
    emptiedDays: [...days].filter((d) => !kept.has(d)).sort((x, y) => x - y),
    countDelta,
  };
}

function batchOf(rows: { timestamps: number[]; values: number[]; flags: string[] }): RecordBatch {
  return { timestamps: Float64Array.from(rows.timestamps), values: Float64Array.from(rows.values), flags: rows.flags };
}
