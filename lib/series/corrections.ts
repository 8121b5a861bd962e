import { randomBytes } from "node:crypto";
import type { Actor } from "@/lib/auth/permissions";
import { db, fromPrimary, Prisma } from "@/lib/db";
import { now } from "@/lib/db/dialect-sql";
import { activitySqlWithId, named } from "@/lib/domain/activity-log";
import { isoMillis, isoSeconds, toNumber } from "@/lib/domain/serialize";
import { changeStatements } from "@/lib/jobs/registry";
import { decodeRecords, encodeRecords, type CorrectionOutcome, type RecordBatch } from "@/lib/records";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import type { SeriesContext } from "@/lib/series/context";

/**
 * The history of a series' corrections (corrections.md; docs/decisions/0021-corrections.md):
 * one row per change of its records made by a user (uploads included), written in the change's
 * own transaction by statements that the records write runs (`also`), with the records it
 * removed or changed as they were (`before`) and those it wrote (`written`), encoded compactly
 * (lib/records/codec.ts), so that a revert gives back exactly what was there.
 */

export type CorrectionKind = "upload" | "replace" | "delete" | "edit" | "transform" | "revert";

/** What a service says about a correction besides its outcome. */
export interface CorrectionNote {
  readonly kind: CorrectionKind;
  /** upload: append or insert; transform: the operation ("offset 0.5", "flag SUSPECT"). */
  readonly detail?: string;
  readonly comment: string;
  /** The correction a revert reverts. */
  readonly reverts?: number | null;
  /** What the activity log says it did, before its range and the series: "Deleted 3 records". */
  readonly did: string;
  /** Said after the range, in its parentheses (an upload's mode). */
  readonly rangeNote?: string;
}

/** A correction as `GET …/corrections/` gives it (corrections.md §1), keys in output order. */
export interface CorrectionJson {
  id: number;
  user: string | null;
  created: string;
  kind: CorrectionKind;
  detail: string;
  start_date: string;
  end_date: string;
  records_before: number;
  records_after: number;
  comment: string;
  reverts: number | null;
  reverted_by: number | null;
}

/** The row's columns as the history reads them (the images apart). */
export interface CorrectionRow {
  id: number;
  seriesId: number;
  userId: number | null;
  username: string;
  created: Date;
  kind: CorrectionKind;
  detail: string;
  first: number;
  last: number;
  recordsBefore: number;
  recordsAfter: number;
  comment: string;
  reverts: number | null;
  revertedBy: number | null;
}

/** A correction with the records it changed. */
export interface CorrectionImages {
  before: RecordBatch;
  written: RecordBatch;
}

export const MAX_COMMENT_LENGTH = 1000;

/** A new correction's token: its transaction inserts the row, and the caller finds its id by it after the commit. */
export function newCorrectionToken(): string {
  return randomBytes(12).toString("base64url");
}

/** An image for an INSERT: a BLOB on SQLite; on PostgreSQL, whose `also` statements inline their values as text, decoded from base64. */
function imageSql(batch: RecordBatch): Prisma.Sql {
  const bytes = encodeRecords(batch);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return db().dialect === "sqlite" ? Prisma.sql`${buffer}` : Prisma.sql`decode(${buffer.toString("base64")}, 'base64')`;
}

/**
 * "2025-03-01 00:00 to 2025-03-01 00:10 UTC+02:00": a range as the station's pages show its data
 * (its display zone), for the activity that its editors read beside those pages.
 */
export function stationRange(first: number, last: number, zone: string): string {
  const offset = zoneOffsetMinutes(zone) ?? 0;
  return `${formatDateTime(first, offset)} to ${formatDateTime(last, offset)} ${offsetLabel(offset)}`;
}

/**
 * The statements that record a correction that changed records, in its transaction: the row
 * with its images, the activity log's entry naming it, and what a write of the series causes
 * (processing from the earliest changed timestamp, synoptic evaluations). None when nothing
 * changed: such a correction is not kept.
 */
export function correctionStatements(token: string, actor: Actor, s: SeriesContext, note: CorrectionNote, outcome: CorrectionOutcome): Prisma.Sql[] {
  if (outcome.first === null || outcome.last === null) return [];
  const idSql = Prisma.sql`(SELECT id FROM correction WHERE token = ${token})`;
  return [
    Prisma.sql`INSERT INTO correction (token, timeseries_id, user_id, username, created, kind, detail, first_timestamp, last_timestamp,
        records_before, records_after, comment, reverts, before, written)
      VALUES (${token}, ${s.id}, ${actor?.id ?? null}, ${actor?.username ?? ""}, ${now(db().dialect)}, ${note.kind}, ${note.detail ?? ""},
        ${outcome.first}, ${outcome.last}, ${outcome.before.timestamps.length}, ${outcome.written.timestamps.length}, ${note.comment},
        ${note.reverts ?? null}, ${imageSql(outcome.before)}, ${imageSql(outcome.written)})`,
    activitySqlWithId(actor, {
      action: note.kind === "upload" ? "upload" : "correct", objectType: "timeseries", objectId: s.id, stationId: s.station.id,
      summary: `${note.did} (${stationRange(outcome.first, outcome.last, s.station.displayTimezone)}${note.rangeNote ? `, ${note.rangeNote}` : ""}) `
        + `${note.kind === "upload" ? "to" : "of"} time series #${s.id} `
        + `of time series group ${named(s.group.name, s.group.id)} (correction #{id})`,
    }, idSql),
    ...changeStatements({ kind: "series-written", seriesId: s.id, first: outcome.first }),
  ];
}

/** The id of the correction recorded with `token`, once its transaction has committed. */
export async function correctionIdOf(token: string): Promise<number> {
  const [row] = await fromPrimary(() => db().query<{ id: unknown }>(Prisma.sql`SELECT id FROM correction WHERE token = ${token}`));
  if (!row) throw new Error(`no correction with token ${token}`);
  return toNumber(row.id)!;
}

const COLUMNS = Prisma.sql`c.id, c.timeseries_id, c.user_id, c.username, c.created, c.kind, c.detail, c.first_timestamp, c.last_timestamp,
  c.records_before, c.records_after, c.comment, c.reverts, (SELECT r.id FROM correction r WHERE r.reverts = c.id) AS reverted_by`;

interface Row {
  id: unknown; timeseries_id: unknown; user_id: unknown; username: string; created: unknown; kind: string; detail: string;
  first_timestamp: unknown; last_timestamp: unknown; records_before: unknown; records_after: unknown; comment: string; reverts: unknown;
  reverted_by: unknown;
}

function rowOf(r: Row): CorrectionRow {
  return {
    id: toNumber(r.id)!, seriesId: toNumber(r.timeseries_id)!, userId: toNumber(r.user_id), username: r.username,
    created: r.created instanceof Date ? r.created : new Date(Number(r.created)), kind: r.kind as CorrectionKind, detail: r.detail,
    first: toNumber(r.first_timestamp)!, last: toNumber(r.last_timestamp)!, recordsBefore: toNumber(r.records_before)!,
    recordsAfter: toNumber(r.records_after)!, comment: r.comment, reverts: toNumber(r.reverts), revertedBy: toNumber(r.reverted_by),
  };
}

export function correctionJson(c: CorrectionRow): CorrectionJson {
  return {
    id: c.id, user: c.userId === null && c.username === "" ? null : c.username, created: isoMillis(c.created)!, kind: c.kind, detail: c.detail,
    start_date: isoSeconds(c.first)!, end_date: isoSeconds(c.last)!, records_before: c.recordsBefore, records_after: c.recordsAfter,
    comment: c.comment, reverts: c.reverts, reverted_by: c.revertedBy,
  };
}

/** Only corrections with a larger id (a replica follows its source's history with it). */
function afterSql(after: number | null): Prisma.Sql {
  return after === null ? Prisma.empty : Prisma.sql`AND c.id > ${after}`;
}

export async function countCorrections(seriesId: number, after: number | null = null): Promise<number> {
  const [row] = await db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM correction c WHERE c.timeseries_id = ${seriesId} ${afterSql(after)}`);
  return toNumber(row.n)!;
}

/** A page of a series' corrections, newest first. */
export async function correctionsPage(seriesId: number, offset: number, limit: number, after: number | null = null): Promise<CorrectionRow[]> {
  const rows = await db().query<Row>(Prisma.sql`SELECT ${COLUMNS} FROM correction c WHERE c.timeseries_id = ${seriesId} ${afterSql(after)}
    ORDER BY c.id DESC LIMIT ${limit} OFFSET ${offset}`);
  return rows.map(rowOf);
}

/** One correction of the series (read on the primary: the writes that follow depend on it). */
export async function findCorrection(seriesId: number, id: number): Promise<CorrectionRow | null> {
  const [row] = await fromPrimary(() => db().query<Row>(Prisma.sql`SELECT ${COLUMNS} FROM correction c WHERE c.id = ${id} AND c.timeseries_id = ${seriesId}`));
  return row ? rowOf(row) : null;
}

/** The records a correction changed: as they were, and as it wrote them. */
export async function correctionImages(id: number): Promise<CorrectionImages> {
  const [row] = await fromPrimary(() => db().query<{ before: Uint8Array; written: Uint8Array }>(Prisma.sql`SELECT before, written FROM correction WHERE id = ${id}`));
  return { before: decodeRecords(row.before), written: decodeRecords(row.written) };
}

/** The timestamps a correction touched (deleted, changed or inserted), sorted. */
export function touchedTimestamps(images: CorrectionImages): Float64Array {
  const a = images.before.timestamps;
  const b = images.written.timestamps;
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i] : Infinity;
    const y = j < b.length ? b[j] : Infinity;
    out[n++] = Math.min(x, y);
    if (x <= y) i++;
    if (y <= x) j++;
  }
  return out.subarray(0, n);
}

function intersects(a: Float64Array, b: Float64Array): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) return true;
    if (a[i] < b[j]) i++;
    else j++;
  }
  return false;
}

/**
 * The later corrections of the series that changed some of the records `c` changed and stand.
 * Later corrections form chains of reverts (X, the revert of X, the revert of that, …); a chain
 * whose members after `c` are odd in number leaves the records changed (X alone, or X re-applied
 * by the revert of its revert), an even number leaves them as `c` wrote them. Each chain that
 * changed them is named by its last member, the one to revert first. Ascending ids.
 */
export async function standingLaterCorrections(c: CorrectionRow, touched: Float64Array): Promise<number[]> {
  const rows = await fromPrimary(() => db().query<{ id: unknown; reverts: unknown; before: Uint8Array; written: Uint8Array }>(Prisma.sql`
    SELECT c.id, c.reverts, c.before, c.written FROM correction c
    WHERE c.timeseries_id = ${c.seriesId} AND c.id > ${c.id} AND c.first_timestamp <= ${c.last} AND c.last_timestamp >= ${c.first}
    ORDER BY c.id`));
  const later = new Map(rows.map((row) => [toNumber(row.id)!, { reverts: toNumber(row.reverts), row }]));
  const reverted = new Set([...later.values()].map((x) => x.reverts));
  const out: number[] = [];
  for (const [id, { row }] of later) {
    if (reverted.has(id)) continue; // not the end of its chain
    let members = 0;
    for (let at: number | null | undefined = id; at != null && later.has(at); at = later.get(at)!.reverts) members++;
    if (members % 2 === 0) continue;
    if (intersects(touched, touchedTimestamps({ before: decodeRecords(row.before), written: decodeRecords(row.written) }))) out.push(id);
  }
  return out;
}
