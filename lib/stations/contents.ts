import { db, Prisma } from "@/lib/db";
import { toNumber } from "@/lib/domain/serialize";

/**
 * What a delete takes with it (management.md §1 "Deletes say what they take"): the confirmation
 * pages show it, and the activity log's delete entries repeat it.
 */
export interface Contents {
  groups?: number;
  series?: number;
  records?: number;
  files?: number;
  images?: number;
  events?: number;
}

const NOUNS: [keyof Contents, string, string][] = [
  ["groups", "time series group", "time series groups"],
  ["series", "time series", "time series"],
  ["records", "record", "records"],
  ["files", "file", "files"],
  ["images", "image", "images"],
  ["events", "event", "events"],
];

const integer = new Intl.NumberFormat("en-US");

/** "3 time series groups, 7 time series, 1,051,200 records, 2 files"; "" when it takes nothing. */
export function contentsText(c: Contents): string {
  return NOUNS.filter(([key]) => (c[key] ?? 0) > 0).map(([key, one, many]) => `${integer.format(c[key]!)} ${c[key] === 1 ? one : many}`).join(", ");
}

type Runner = { $queryRaw<T>(sql: Prisma.Sql): Promise<T> };

/** Everything under a station, in one query (inside a transaction when `tx` is given). */
export async function stationContents(stationId: number, tx?: Runner): Promise<Contents> {
  const runner: Runner = tx ?? db().prisma;
  const [r] = await runner.$queryRaw<Record<string, unknown>[]>(Prisma.sql`SELECT
    (SELECT COUNT(*) FROM timeseries_group WHERE station_id = ${stationId}) AS groups,
    (SELECT COUNT(*) FROM timeseries t JOIN timeseries_group g ON g.id = t.timeseries_group_id WHERE g.station_id = ${stationId}) AS series,
    (SELECT COALESCE(SUM(t.record_count), 0) FROM timeseries t JOIN timeseries_group g ON g.id = t.timeseries_group_id WHERE g.station_id = ${stationId}) AS records,
    (SELECT COUNT(*) FROM gentity_file WHERE station_id = ${stationId}) AS files,
    (SELECT COUNT(*) FROM gentity_image WHERE station_id = ${stationId}) AS images,
    (SELECT COUNT(*) FROM gentity_event WHERE station_id = ${stationId}) AS events`);
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, toNumber(v) ?? 0])) as Contents;
}

/** The series of a group and their records. */
export async function groupContents(groupId: number, tx?: Runner): Promise<Contents> {
  const runner: Runner = tx ?? db().prisma;
  const [r] = await runner.$queryRaw<Record<string, unknown>[]>(Prisma.sql`SELECT COUNT(*) AS series, COALESCE(SUM(record_count), 0) AS records
    FROM timeseries WHERE timeseries_group_id = ${groupId}`);
  return { series: toNumber(r.series) ?? 0, records: toNumber(r.records) ?? 0 };
}
