import { canReadData, isSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { formatPointEwkt } from "@/lib/geo/wkt";
import { records } from "@/lib/records";
import { isoSeconds, shownInstant } from "@/lib/domain/serialize";
import { groupPrecision } from "@/lib/series";
import { stationAccesses, type StationAccess } from "@/lib/stations";
import { isDatabaseId } from "@/lib/domain/refs";
import { rowOf, SYNOPTIC_GROUP_COLUMNS, type SynopticGroupRow } from "@/lib/synoptic/groups";
import type { SynopticRateOfChange } from "@/lib/synoptic/config";
import { freshness, lastCommonDate, roundedValue, valueStatus, type Freshness, type ValueStatus } from "@/lib/synoptic/status";

/**
 * The state of a synoptic group's stations now (synoptic.md §1): for each station its last
 * common date and, for each of its series, the value of the group's default series (Checked if
 * there is one, else Initial) at that date. Two native queries: the definition with each
 * series' summary, and the values not given by a summary's last record.
 */
export interface SynopticEntry {
  /** The synoptic series' id (its alarm state is keyed by it). */
  id: number;
  timeseriesGroupId: number;
  /** The title shown: the synoptic series' own, or the group's name, or its variable. */
  title: string;
  subtitle: string;
  variable: string;
  unit: string;
  precision: number;
  lowLimit: number | null;
  highLimit: number | null;
  defaultChartMin: number | null;
  defaultChartMax: number | null;
  rateOfChange: SynopticRateOfChange | null;
  /** The default series, or null when the group has neither Checked nor Initial. */
  seriesId: number | null;
  publiclyAvailable: boolean;
  lastTimestamp: number | null;
  /** The stored value at the station's last common date; null when there is no such record or it is empty. */
  value: number | null;
}

export interface SynopticStation {
  id: number;
  name: string;
  lon: number;
  lat: number;
  lastCommonDate: number | null;
  entries: SynopticEntry[];
}

/** A row of synopticStations' query, as an array (many rows: objects would cost more than the query). */
type Row = [
  stationId: number, stationRow: number, stationOrder: number, name: string, lon: number, lat: number,
  entryId: number | null, entryOrder: number | null, timeseriesGroupId: number | null, title: string | null, subtitle: string | null,
  lowLimit: number | null, highLimit: number | null, defaultChartMin: number | null, defaultChartMax: number | null, rateOfChange: string | null,
  groupName: string | null, precision: number | null, variable: string | null, unit: string | null,
  seriesId: number | null, publiclyAvailable: boolean | number | null, lastTimestamp: number | null, lastValue: number | null,
];

/** The order of synopticStations' rows: the stations', then their series' (sorted here: an ORDER BY of these wide rows costs more). */
function byDisplayOrder(a: Row, b: Row): number {
  return a[2] - b[2] || a[1] - b[1] || (a[7] ?? 0) - (b[7] ?? 0) || (a[6] ?? 0) - (b[6] ?? 0);
}

/** The stations of a synoptic group, in order, with their values at their last common dates. */
export async function synopticStations(groupId: number): Promise<SynopticStation[]> {
  const rows = await db().queryArrays<Row>(Prisma.sql`
    SELECT gs.station_id, gs.id, gs."order", s.name, s.lon, s.lat,
      e.id, e."order", e.timeseries_group_id, e.title, e.subtitle, e.low_limit, e.high_limit, e.default_chart_min, e.default_chart_max, e.rate_of_change,
      g.name, g.precision, v.descr, u.symbol,
      COALESCE(tc.id, ti.id),
      CASE WHEN tc.id IS NULL THEN ti.publicly_available ELSE tc.publicly_available END,
      CASE WHEN tc.id IS NULL THEN ti.last_timestamp ELSE tc.last_timestamp END,
      CASE WHEN tc.id IS NULL THEN ti.last_value ELSE tc.last_value END
    FROM synoptic_group_station gs
      JOIN station s ON s.id = gs.station_id
      LEFT JOIN synoptic_timeseries_group e ON e.synoptic_group_station_id = gs.id
      LEFT JOIN timeseries_group g ON g.id = e.timeseries_group_id
      LEFT JOIN variable v ON v.id = g.variable_id
      LEFT JOIN unit_of_measurement u ON u.id = g.unit_id
      -- The default series: Checked (2), else Initial (1); one of each per group (an index).
      LEFT JOIN timeseries tc ON tc.timeseries_group_id = g.id AND tc.type = 2
      LEFT JOIN timeseries ti ON ti.timeseries_group_id = g.id AND ti.type = 1
    WHERE gs.synoptic_group_id = ${groupId}`);
  rows.sort(byDisplayOrder);
  const stations: SynopticStation[] = [];
  const lastValues = new Map<number, number | null>();
  let stationRow: number | null = null;
  for (const r of rows) {
    const [stationId, rowId, , name, lon, lat, entryId, , timeseriesGroupId, title, subtitle, lowLimit, highLimit, defaultChartMin, defaultChartMax, rateOfChange,
      groupName, precision, variable, unit, seriesId, publiclyAvailable, lastTimestamp, lastValue] = r;
    if (stationRow !== rowId) {
      stationRow = rowId;
      stations.push({ id: stationId, name, lon, lat, lastCommonDate: null, entries: [] });
    }
    const station = stations[stations.length - 1];
    if (entryId === null) continue;
    station.entries.push({
      id: entryId,
      timeseriesGroupId: timeseriesGroupId!,
      title: title || groupName || variable || "",
      subtitle: subtitle ?? "",
      variable: variable ?? "",
      unit: unit ?? "",
      precision: groupPrecision(precision ?? 0),
      lowLimit,
      highLimit,
      defaultChartMin,
      defaultChartMax,
      rateOfChange: rateOfChange === null ? null : (JSON.parse(rateOfChange) as SynopticRateOfChange),
      seriesId,
      publiclyAvailable: publiclyAvailable === null ? true : Boolean(publiclyAvailable),
      lastTimestamp: shownInstant(lastTimestamp),
      value: null,
    });
    lastValues.set(entryId, lastValue);
  }
  await fillValues(stations, lastValues);
  return stations;
}

/** Sets each station's last common date and each entry's value there, from the summaries' last values (keyed by entry) and the records. */
async function fillValues(stations: SynopticStation[], lastValues: Map<number, number | null>): Promise<void> {
  const lookups: { entry: SynopticEntry; at: number }[] = [];
  for (const station of stations) {
    station.lastCommonDate = lastCommonDate(station.entries.map((e) => e.lastTimestamp));
    for (const entry of station.entries) {
      if (station.lastCommonDate === null || entry.lastTimestamp === null) continue;
      // Usually every series ends at the last common date: its summary holds the value.
      if (entry.lastTimestamp === station.lastCommonDate) entry.value = lastValues.get(entry.id) ?? null;
      else lookups.push({ entry, at: station.lastCommonDate });
    }
  }
  if (lookups.length) {
    const found = await valuesAt(lookups.map((l) => [l.entry.seriesId!, l.at]));
    for (const l of lookups) l.entry.value = found.get(`${l.entry.seriesId}:${l.at}`) ?? null;
  }
}

/**
 * The definitions of synoptic groups as the alarm evaluation last read them, with the version
 * they were read at: the group's last_modified and its numbers of stations and series (a
 * change through the service sets last_modified; a station or time series group deleted
 * elsewhere takes its rows with it, which the counts see). Per process: with several processes
 * each keeps its own, checked against the database on every use.
 */
const definitions = new Map<number, { version: string; stations: SynopticStation[] }>();

/** What an alarm evaluation starts from (synopticEvaluationState). */
export interface EvaluationState {
  group: SynopticGroupRow;
  /** The alarms in force, as "entry:kind" (entry: the synoptic series' id). */
  alarms: string[];
  stations: SynopticStation[];
}

/**
 * synopticStations for the alarm evaluation, which runs after every upload, with the group's
 * row and its alarms in force. One query for these and the definition's version; the
 * definition (stations, series, limits, names) from a cache checked against that version; and
 * only the default series and their summaries read each time (one query, and one for values not
 * at the summaries' last records). Names, units and precisions may be older than the
 * database's (the evaluation decides without them and reads synopticStations afresh before it
 * writes). Null when the group does not exist.
 */
export async function synopticEvaluationState(groupId: number): Promise<EvaluationState | null> {
  if (!isDatabaseId(groupId)) return null;
  const alarmKeys = db().dialect === "sqlite"
    ? Prisma.sql`group_concat(a.synoptic_timeseries_group_id || ':' || a.kind, ',')`
    : Prisma.sql`string_agg(a.synoptic_timeseries_group_id || ':' || a.kind, ',')`;
  const [row] = await db().query<Parameters<typeof rowOf>[0] & { stations: number; entries: number; last_entry: number | null; alarms: string | null }>(Prisma.sql`
    SELECT ${SYNOPTIC_GROUP_COLUMNS},
      (SELECT COUNT(*) FROM synoptic_group_station gs WHERE gs.synoptic_group_id = g.id) AS stations,
      (SELECT COUNT(*) FROM synoptic_group_station gs JOIN synoptic_timeseries_group e ON e.synoptic_group_station_id = gs.id
        WHERE gs.synoptic_group_id = g.id) AS entries,
      (SELECT MAX(e.id) FROM synoptic_group_station gs JOIN synoptic_timeseries_group e ON e.synoptic_group_station_id = gs.id
        WHERE gs.synoptic_group_id = g.id) AS last_entry,
      (SELECT ${alarmKeys} FROM synoptic_alarm a
        JOIN synoptic_timeseries_group e ON e.id = a.synoptic_timeseries_group_id
        JOIN synoptic_group_station gs ON gs.id = e.synoptic_group_station_id
        WHERE gs.synoptic_group_id = g.id) AS alarms
    FROM synoptic_group g WHERE g.id = ${groupId}`);
  if (!row) {
    definitions.delete(groupId);
    return null;
  }
  const group = rowOf(row);
  const alarms = row.alarms ? row.alarms.split(",") : [];
  const version = `${group.lastModified?.getTime() ?? ""}:${row.stations}:${row.entries}:${row.last_entry}`;
  const cached = definitions.get(groupId);
  if (cached?.version !== version) {
    const stations = await synopticStations(groupId);
    definitions.set(groupId, { version, stations });
    return { group, alarms, stations };
  }
  // The default series now (Checked, else Initial) of each series of the group, with its summary.
  type SeriesRow = [entryId: number, type: number, id: number, publiclyAvailable: boolean | number, lastTimestamp: number | null, lastValue: number | null];
  const series = await db().queryArrays<SeriesRow>(Prisma.sql`
    SELECT e.id, t.type, t.id, t.publicly_available, t.last_timestamp, t.last_value
    FROM synoptic_group_station gs
      JOIN synoptic_timeseries_group e ON e.synoptic_group_station_id = gs.id
      JOIN timeseries t ON t.timeseries_group_id = e.timeseries_group_id AND t.type IN (1, 2)
    WHERE gs.synoptic_group_id = ${groupId}`);
  const byEntry = new Map<number, SeriesRow>();
  for (const s of series) {
    const other = byEntry.get(s[0]);
    if (!other || s[1] > other[1]) byEntry.set(s[0], s);
  }
  const lastValues = new Map<number, number | null>();
  const stations = cached.stations.map((station) => ({
    ...station,
    lastCommonDate: null,
    entries: station.entries.map((entry): SynopticEntry => {
      const s = byEntry.get(entry.id);
      lastValues.set(entry.id, s ? s[5] : null);
      return {
        ...entry,
        seriesId: s ? s[2] : null,
        publiclyAvailable: s ? Boolean(s[3]) : true,
        lastTimestamp: shownInstant(s?.[4]),
        value: null,
      };
    }),
  }));
  await fillValues(stations, lastValues);
  return { group, alarms, stations };
}

/** The stored values of (series, timestamp) pairs, keyed "series:timestamp"; empty values and missing records are absent. */
async function valuesAt(pairs: [number, number][]): Promise<Map<string, number>> {
  const found = await records().recordsAt(pairs);
  const out = new Map<string, number>();
  pairs.forEach(([id, t], k) => {
    const value = found[k]?.value;
    if (value !== undefined && value !== null) out.set(`${id}:${t}`, value);
  });
  return out;
}

/**
 * Who may read which station's private data: the stations with private series that the actor
 * is not known to read already (anonymous users read none, superusers all).
 */
export async function readableStations(actor: Actor, stations: SynopticStation[]): Promise<(station: SynopticStation, entry: SynopticEntry) => boolean> {
  if (isSuperuser(actor)) return () => true;
  const withPrivate = stations.filter((s) => s.entries.some((e) => !e.publiclyAvailable)).map((s) => s.id);
  const access = actor && withPrivate.length ? await stationAccesses(withPrivate) : new Map<number, StationAccess>();
  return (station, entry) => {
    if (entry.publiclyAvailable) return true;
    const a = access.get(station.id);
    return !!a && canReadData(actor, a, false);
  };
}

export type LatestStatus = ValueStatus | "hidden";

/** One station of `latest/` (synoptic.md §1), keys in output order. */
export interface LatestStationJson {
  station: number;
  name: string;
  geom: string;
  last_common_date: string | null;
  freshness: Freshness;
  values: { timeseries_group: number; title: string; unit: string; value: number | null; status: LatestStatus }[];
}

/** `latest/` as the actor may see it: the values of private series only for their data readers. */
export async function latestJson(group: SynopticGroupRow, actor: Actor, now = Date.now()): Promise<LatestStationJson[]> {
  return latestOf(group, await synopticStations(group.id), actor, now);
}

/** latestJson of stations already read. */
export async function latestOf(group: SynopticGroupRow, stations: SynopticStation[], actor: Actor, now = Date.now()): Promise<LatestStationJson[]> {
  const readable = await readableStations(actor, stations);
  const nowSeconds = Math.floor(now / 1000);
  return stations.map((s) => ({
    station: s.id,
    name: s.name,
    geom: formatPointEwkt(s.lon, s.lat),
    last_common_date: isoSeconds(s.lastCommonDate),
    freshness: freshness(s.lastCommonDate, nowSeconds, group.freshTimeLimit),
    values: s.entries.map((e) => {
      const visible = readable(s, e);
      return {
        timeseries_group: e.timeseriesGroupId,
        title: e.title,
        unit: e.unit,
        value: visible ? roundedValue(e.value, e.precision) : null,
        status: visible ? valueStatus(e.value, e.lowLimit, e.highLimit) : "hidden",
      };
    }),
  }));
}
