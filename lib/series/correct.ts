import { ensureEditor, type Actor } from "@/lib/auth/permissions";
import { Conflict, DomainError, orNotFound, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { MAX_INSTANT, MIN_INSTANT } from "@/lib/formats/date-param";
import { formatInstantWithOffset } from "@/lib/formats/timestamp";
import type { TimeZone } from "@/lib/formats/timezone";
import { records, type CorrectionChange, type CorrectionOutcome, type CorrectionPlan, type RecordBatch } from "@/lib/records";
import { contentsText } from "@/lib/stations";
import { seriesOfPath, writableSeries, type SeriesContext, type SeriesPath } from "@/lib/series/context";
import {
  correctionIdOf, correctionImages, correctionStatements, findCorrection, newCorrectionToken, standingLaterCorrections, touchedTimestamps,
  type CorrectionNote, type CorrectionRow,
} from "@/lib/series/corrections";
import { describeTransform, transformRecords, type Bound, type TransformSpec } from "@/lib/series/transform";

/**
 * Corrections of a series' records by an editor of its station (corrections.md §1): deleting a
 * range, editing single records, transforming a range, reverting a correction (the upload's
 * replace mode is in upload.ts). Each is one records-store correction (records().correct: one
 * transaction, serialized with the series' other writes) whose `also` records it in the history
 * with the activity log's entry and the processing and synoptic work it causes. A dry run
 * computes the same outcome and changes nothing.
 */

/** A range of §8.1 dates, inclusive; null is unbounded on that side (both null: every record). */
export interface RecordRange {
  readonly start: number | null;
  readonly end: number | null;
}

export interface CorrectionOptions {
  readonly comment: string;
  readonly dryRun: boolean;
}

/** A record as a dry run shows it changing: null before (inserted) or after (deleted). */
export interface ChangedRecord {
  timestamp: number;
  before: { value: number | null; flags: string } | null;
  after: { value: number | null; flags: string } | null;
}

export interface Corrected {
  readonly outcome: CorrectionOutcome;
  /** The id of the correction recorded; null for a dry run or when nothing changed. */
  readonly correction: number | null;
}

/** The records that changed, in time order, as they were and as they are (or would be). */
export function changedRecords(outcome: CorrectionOutcome): ChangedRecord[] {
  const { before, written } = outcome;
  const value = (v: number) => (v === v ? v : null);
  const out: ChangedRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < before.timestamps.length || j < written.timestamps.length) {
    const a = i < before.timestamps.length ? before.timestamps[i] : Infinity;
    const b = j < written.timestamps.length ? written.timestamps[j] : Infinity;
    const t = Math.min(a, b);
    out.push({
      timestamp: t,
      before: a === t ? { value: value(before.values[i]), flags: before.flags[i++] } : null,
      after: b === t ? { value: value(written.values[j]), flags: written.flags[j++] } : null,
    });
  }
  return out;
}

/**
 * Applies a plan as the actor's correction of series `s`: records it (unless it is a dry run or
 * changed nothing) and queues what follows. `change` may throw a DomainError to refuse the
 * correction with nothing changed (a ValidationFailed, a Conflict); the store's own refusals
 * (a value that is not finite, a timestamp out of range) are a 400.
 */
export async function applyCorrection(
  actor: Actor, s: SeriesContext, from: number, to: number, change: (current: RecordBatch) => CorrectionChange,
  note: (outcome: CorrectionOutcome) => CorrectionNote, dryRun: boolean,
): Promise<Corrected> {
  const token = newCorrectionToken();
  let refusal = null as DomainError | null;
  const plan: CorrectionPlan = {
    from, to,
    change(current) {
      try {
        return change(current);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        refusal = error;
        return { errors: [error.message || "refused"] };
      }
    },
  };
  const result = await records().correct(s.id, plan, { dryRun, also: (outcome) => correctionStatements(token, actor, s, note(outcome), outcome) });
  if (!result.ok) throw refusal ?? new ValidationFailed({ non_field_errors: result.errors.map(sentence) });
  const outcome: CorrectionOutcome = { before: result.before, written: result.written, first: result.first, last: result.last };
  if (dryRun || outcome.first === null) return { outcome, correction: null };
  return { outcome, correction: await correctionIdOf(token) };
}

/** The store's message as a sentence: "The value at … is not a finite number." */
function sentence(message: string): string {
  return `${message[0].toUpperCase()}${message.slice(1)}${message.endsWith(".") ? "" : "."}`;
}

const count = (n: number) => contentsText({ records: n }) || "0 records";

/** The bounds of a range as the records store takes them. */
function planRecordRange(range: RecordRange): { from: number; to: number } {
  return { from: range.start ?? -Infinity, to: range.end ?? Infinity };
}

// ---- DELETE …/data/

export interface DeleteValues extends CorrectionOptions {
  readonly range: RecordRange;
}

/** Deletes the records of a range (every record when it is unbounded). */
export async function deleteRecords(actor: Actor, path: SeriesPath, given: Given<DeleteValues, SeriesContext>): Promise<Corrected> {
  const s = await writableSeries(actor, path);
  const { range, comment, dryRun } = await valuesOf(given, s);
  const { from, to } = planRecordRange(range);
  return applyCorrection(actor, s, from, to, (current) => ({ remove: current.timestamps, upsert: EMPTY }),
    (o) => ({ kind: "delete", comment, did: `Deleted ${count(o.before.timestamps.length)}` }), dryRun);
}

const EMPTY: RecordBatch = { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };

// ---- PATCH …/data/

/** One record to change: its value (null: empty) and/or its flags; undefined leaves it. */
export interface RecordEdit {
  readonly timestamp: number;
  readonly value?: number | null;
  readonly flags?: string;
}

export interface EditValues extends CorrectionOptions {
  /** In the order sent (messages name them by their index); timestamps distinct. */
  readonly records: readonly RecordEdit[];
  /** The zone that messages write timestamps in. */
  readonly zone: TimeZone;
}

/** Changes the value and/or flags of stored records, all or none: a timestamp that is not stored refuses the edit, naming it. */
export async function editRecords(actor: Actor, path: SeriesPath, given: Given<EditValues, SeriesContext>): Promise<Corrected> {
  const s = await writableSeries(actor, path);
  const { records: edits, zone, comment, dryRun } = await valuesOf(given, s);
  const order = edits.map((_, k) => k).sort((a, b) => edits[a].timestamp - edits[b].timestamp);
  if (order.length === 0) return { outcome: { before: EMPTY, written: EMPTY, first: null, last: null }, correction: null };
  const from = edits[order[0]].timestamp;
  const to = edits[order[order.length - 1]].timestamp;
  return applyCorrection(actor, s, from, to, (current) => {
    const n = order.length;
    const upsert = { timestamps: new Float64Array(n), values: new Float64Array(n), flags: new Array<string>(n) };
    const missing: string[] = [];
    let i = 0;
    for (let k = 0; k < n; k++) {
      const edit = edits[order[k]];
      while (i < current.timestamps.length && current.timestamps[i] < edit.timestamp) i++;
      if (i === current.timestamps.length || current.timestamps[i] !== edit.timestamp) {
        missing.push(`records[${order[k]}].timestamp: There is no record at ${formatInstantWithOffset(edit.timestamp, zone)}.`);
        continue;
      }
      upsert.timestamps[k] = edit.timestamp;
      upsert.values[k] = edit.value === undefined ? current.values[i] : edit.value === null ? NaN : edit.value;
      upsert.flags[k] = edit.flags ?? current.flags[i];
    }
    if (missing.length) {
      // In the order the records were sent.
      const index = (m: string) => Number(/^records\[(\d+)\]/.exec(m)![1]);
      throw new ValidationFailed({ records: missing.sort((a, b) => index(a) - index(b)) });
    }
    return { remove: new Float64Array(0), upsert };
  }, (o) => ({ kind: "edit", comment, did: `Edited ${count(o.written.timestamps.length)}` }), dryRun);
}

// ---- POST …/data/transform/

export interface TransformValues extends CorrectionOptions {
  readonly range: RecordRange;
  /** The operation; interpolate's bounds are found here. */
  readonly operation: { operation: "offset" | "scale"; amount: number } | { operation: "set"; amount: number | null }
    | { operation: "interpolate" } | { operation: "flag" | "unflag"; flags: string };
}

/** The nearest record with a value after t (inclusive), or null. */
async function nextValued(seriesId: number, t: number): Promise<Bound | null> {
  for await (const chunk of records().read(seriesId, Math.max(t, MIN_INSTANT), MAX_INSTANT)) {
    for (let i = 0; i < chunk.length; i++) if (chunk.values[i] === chunk.values[i]) return { t: chunk.timestamps[i], v: chunk.values[i] };
  }
  return null;
}

/** The nearest record with a value before t (inclusive), or null: windows reaching back ten times further each time. */
async function previousValued(seriesId: number, t: number): Promise<Bound | null> {
  let hi = Math.min(t, MAX_INSTANT);
  for (let width = 86_400; hi >= MIN_INSTANT; width *= 10) {
    const lo = Math.max(hi - width, MIN_INSTANT);
    let found: Bound | null = null;
    for await (const chunk of records().read(seriesId, lo, hi)) {
      for (let i = chunk.length - 1; i >= 0; i--) {
        if (chunk.values[i] === chunk.values[i]) {
          found = { t: chunk.timestamps[i], v: chunk.values[i] };
          break;
        }
      }
    }
    if (found) return found;
    if (lo === MIN_INSTANT) return null;
    hi = lo - 1;
  }
  return null;
}

/** The first index of `timestamps` whose timestamp is ≥ t. */
function lowerBound(timestamps: Float64Array, t: number): number {
  let lo = 0;
  let hi = timestamps.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timestamps[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function slice(batch: RecordBatch, a: number, b: number): RecordBatch {
  return { timestamps: batch.timestamps.subarray(a, b), values: batch.values.subarray(a, b), flags: batch.flags.slice(a, b) };
}

export const BOUNDS_CHANGED = "The records around the range changed while the interpolation was computed; try again.";

/**
 * Transforms the records of a range: offset, scale, set, interpolate (linearly between the
 * nearest records with a value before and after the range, rounded to the group's precision),
 * flag, unflag.
 */
export async function transformData(actor: Actor, path: SeriesPath, given: Given<TransformValues, SeriesContext>): Promise<Corrected> {
  const s = await writableSeries(actor, path);
  const { range, operation, comment, dryRun } = await valuesOf(given, s);
  const { from, to } = planRecordRange(range);
  let spec: TransformSpec;
  if (operation.operation === "interpolate") {
    // The validation required both bounds.
    const [before, after] = await Promise.all([previousValued(s.id, from - 1), nextValued(s.id, to + 1)]);
    const problems: string[] = [];
    if (!before) problems.push("There is no record with a value before start_date to interpolate from.");
    if (!after) problems.push("There is no record with a value after end_date to interpolate to.");
    if (problems.length) throw new ValidationFailed({ non_field_errors: problems });
    spec = { operation: "interpolate", before: before!, after: after!, precision: s.group.precision };
  } else {
    spec = operation;
  }
  const note = (o: CorrectionOutcome): CorrectionNote => ({
    kind: "transform", detail: describeTransform(spec), comment, did: `Transformed ${count(o.written.timestamps.length)} (${describeTransform(spec)})`,
  });
  if (spec.operation !== "interpolate") {
    return applyCorrection(actor, s, from, to, (current) => ({ remove: new Float64Array(0), upsert: transformRecords(current, spec) }), note, dryRun);
  }
  const { before, after } = spec;
  // The correction reads from one bound to the other, so that it sees them as they are in its transaction.
  return applyCorrection(actor, s, before.t, after.t, (current) => {
    const a = lowerBound(current.timestamps, from);
    const b = lowerBound(current.timestamps, to + 1);
    const n = current.timestamps.length;
    const valued = (k: number) => current.values[k] === current.values[k];
    let intact = n >= 2 && current.timestamps[0] === before.t && current.values[0] === before.v
      && current.timestamps[n - 1] === after.t && current.values[n - 1] === after.v;
    for (let k = 1; intact && k < a; k++) intact = !valued(k);
    for (let k = b; intact && k < n - 1; k++) intact = !valued(k);
    if (!intact) throw new Conflict(BOUNDS_CHANGED);
    return { remove: new Float64Array(0), upsert: transformRecords(slice(current, a, b), spec) };
  }, note, dryRun);
}

// ---- POST …/corrections/{cid}/revert/

export type RevertValues = CorrectionOptions;

function laterMessage(id: number, later: number[]): string {
  const names = later.length === 1 ? `Correction ${later[0]}` : `Corrections ${later.slice(0, -1).join(", ")} and ${later[later.length - 1]}`;
  return `${names} changed the same records after correction ${id} and ${later.length === 1 ? "is" : "are"} not reverted; revert ${later.length === 1 ? "it" : "them"} first.`;
}

export const CHANGED_OUTSIDE_HISTORY = "The records changed since by a write that is not in the history (an automatic process or a replication); the correction cannot be reverted exactly.";

/**
 * Whether the stored records of the correction's range (current) are as it left them: each
 * record it wrote still there with its value and flags, each it deleted still absent.
 */
function asLeft(current: RecordBatch, written: RecordBatch, touched: Float64Array): boolean {
  let i = 0;
  let j = 0;
  for (const t of touched) {
    while (i < current.timestamps.length && current.timestamps[i] < t) i++;
    while (j < written.timestamps.length && written.timestamps[j] < t) j++;
    const stored = i < current.timestamps.length && current.timestamps[i] === t;
    const wrote = j < written.timestamps.length && written.timestamps[j] === t;
    if (stored !== wrote) return false;
    if (wrote) {
      const v = current.values[i];
      const w = written.values[j];
      if (!(v === w || (v !== v && w !== w)) || current.flags[i] !== written.flags[j]) return false;
    }
  }
  return true;
}

/**
 * Restores the records a correction changed, exactly, as a new correction. Refused (409) when it
 * was reverted already, or when a later correction that stands changed some of the same records
 * (naming it), or when they changed by a write outside the history.
 */
export async function revertCorrection(actor: Actor, path: SeriesPath, id: number, given: Given<RevertValues, SeriesContext>): Promise<Corrected & { reverted: CorrectionRow }> {
  const s = await seriesOfPath(path);
  const c = orNotFound(await findCorrection(s.id, id));
  ensureEditor(actor, s.access);
  const { comment, dryRun } = await valuesOf(given, s);
  if (c.revertedBy !== null) throw new Conflict(`Correction ${c.id} was already reverted by correction ${c.revertedBy}.`);
  const images = await correctionImages(c.id);
  const touched = touchedTimestamps(images);
  const later = await standingLaterCorrections(c, touched);
  if (later.length) throw new Conflict(laterMessage(c.id, later));
  // What it inserted goes; what it deleted or changed comes back as it was.
  const inserted = images.written.timestamps.filter((t) => !includes(images.before.timestamps, t));
  let changedMeanwhile = false;
  try {
    const done = await applyCorrection(actor, s, c.first, c.last, (current) => {
      if (!asLeft(current, images.written, touched)) {
        changedMeanwhile = true;
        throw new Conflict(CHANGED_OUTSIDE_HISTORY);
      }
      return { remove: inserted, upsert: images.before };
    }, () => ({ kind: "revert", reverts: c.id, comment, did: `Reverted correction #${c.id}` }), dryRun);
    return { ...done, reverted: c };
  } catch (error) {
    if (!changedMeanwhile) throw error;
    // A revert or a correction that committed after the checks above, or a write outside the history.
    const again = await findCorrection(s.id, c.id);
    if (again?.revertedBy != null) throw new Conflict(`Correction ${c.id} was already reverted by correction ${again.revertedBy}.`);
    const now = await standingLaterCorrections(c, touched);
    throw now.length ? new Conflict(laterMessage(c.id, now)) : error;
  }
}

/** Whether the sorted `timestamps` hold t. */
function includes(timestamps: Float64Array, t: number): boolean {
  const k = lowerBound(timestamps, t);
  return k < timestamps.length && timestamps[k] === t;
}
