import { canReadData, isSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { formatPointEwkt } from "@/lib/geo/wkt";
import { isoSeconds } from "@/lib/services/serialize";
import { stationAccesses, type StationAccess } from "@/lib/services/stations";
import { isDatabaseId } from "@/lib/services/refs";
import { rowOf, SYNOPTIC_GROUP_COLUMNS, type SynopticGroupRow } from "@/lib/services/synoptic-groups";
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

interface Row {
  station_id: number; station_row: number; name: string; lon: number; lat: number;
  entry_id: number | null; timeseries_group_id: number | null; title: string | null; subtitle: string | null;
  low_limit: number | null; high_limit: number | null; default_chart_min: number | null; default_chart_max: number | null; rate_of_change: string | null;
  group_name: string | null; precision: number | null; variable: string | null; unit: string | null;
  series_id: number | null; publicly_available: boolean | null; last_timestamp: number | null; last_value: number | null;
}

/** The stations of a synoptic group, in order, with their values at their last common dates. */
export async function synopticStations(groupId: number): Promise<SynopticStation[]> {
  const rows = await db().query<Row>(Prisma.sql`
    SELECT gs.station_id, gs.id AS station_row, s.name, s.lon, s.lat,
      e.id AS entry_id, e.timeseries_group_id, e.title, e.subtitle, e.low_limit, e.high_limit, e.default_chart_min, e.default_chart_max, e.rate_of_change,
      g.name AS group_name, g.precision, v.descr AS variable, u.symbol AS unit,
      COALESCE(tc.id, ti.id) AS series_id,
      CASE WHEN tc.id IS NULL THEN ti.publicly_available ELSE tc.publicly_available END AS publicly_available,
      CASE WHEN tc.id IS NULL THEN ti.last_timestamp ELSE tc.last_timestamp END AS last_timestamp,
      CASE WHEN tc.id IS NULL THEN ti.last_value ELSE tc.last_value END AS last_value
    FROM synoptic_group_station gs
      JOIN station s ON s.id = gs.station_id
      LEFT JOIN synoptic_timeseries_group e ON e.synoptic_group_station_id = gs.id
      LEFT JOIN timeseries_group g ON g.id = e.timeseries_group_id
      LEFT JOIN variable v ON v.id = g.variable_id
      LEFT JOIN unit_of_measurement u ON u.id = g.unit_id
      -- The default series: Checked (2), else Initial (1); one of each per group (an index).
      LEFT JOIN timeseries tc ON tc.timeseries_group_id = g.id AND tc.type = 2
      LEFT JOIN timeseries ti ON ti.timeseries_group_id = g.id AND ti.type = 1
    WHERE gs.synoptic_group_id = ${groupId}
    ORDER BY gs."order", gs.id, e."order", e.id`);
  const stations: SynopticStation[] = [];
  let stationRow: number | null = null;
  for (const r of rows) {
    if (stationRow !== r.station_row) {
      stationRow = r.station_row;
      stations.push({ id: r.station_id, name: r.name, lon: r.lon, lat: r.lat, lastCommonDate: null, entries: [] });
    }
    const station = stations[stations.length - 1];
    if (r.entry_id === null) continue;
    station.entries.push({
      id: r.entry_id,
      timeseriesGroupId: r.timeseries_group_id!,
      title: r.title || r.group_name || r.variable || "",
      subtitle: r.subtitle ?? "",
      variable: r.variable ?? "",
      unit: r.unit ?? "",
      precision: r.precision ?? 0,
      lowLimit: r.low_limit,
      highLimit: r.high_limit,
      defaultChartMin: r.default_chart_min,
      defaultChartMax: r.default_chart_max,
      rateOfChange: r.rate_of_change === null ? null : (JSON.parse(r.rate_of_change) as SynopticRateOfChange),
      seriesId: r.series_id,
      publiclyAvailable: r.publicly_available ?? true,
      lastTimestamp: r.last_timestamp === null ? null : Number(r.last_timestamp),
      value: null,
    });
  }
  await fillValues(stations, new Map(rows.filter((r) => r.entry_id !== null).map((r) => [r.entry_id!, r.last_value])));
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
  const series = await db().query<{ entry_id: number; type: number; id: number; publicly_available: boolean; last_timestamp: number | null; last_value: number | null }>(Prisma.sql`
    SELECT e.id AS entry_id, t.type, t.id, t.publicly_available, t.last_timestamp, t.last_value
    FROM synoptic_group_station gs
      JOIN synoptic_timeseries_group e ON e.synoptic_group_station_id = gs.id
      JOIN timeseries t ON t.timeseries_group_id = e.timeseries_group_id AND t.type IN (1, 2)
    WHERE gs.synoptic_group_id = ${groupId}`);
  const byEntry = new Map<number, (typeof series)[number]>();
  for (const s of series) {
    const other = byEntry.get(s.entry_id);
    if (!other || s.type > other.type) byEntry.set(s.entry_id, s);
  }
  const stations = cached.stations.map((station) => ({
    ...station,
    lastCommonDate: null,
    entries: station.entries.map((entry): SynopticEntry => {
      const s = byEntry.get(entry.id);
      return {
        ...entry,
        seriesId: s?.id ?? null,
        publiclyAvailable: s ? Boolean(s.publicly_available) : true,
        lastTimestamp: s?.last_timestamp == null ? null : Number(s.last_timestamp),
        value: null,
      };
    }),
  }));
  await fillValues(stations, new Map([...byEntry].map(([entry, s]) => [entry, s.last_value])));
  return { group, alarms, stations };
}

/** The stored values of (series, timestamp) pairs, keyed "series:timestamp"; empty values and missing records are absent. */
async function valuesAt(pairs: [number, number][]): Promise<Map<string, number>> {
  const rows = db().dialect === "sqlite"
    ? await db().query<{ id: number; t: number; value: number | null }>(Prisma.sql`
        SELECT r.timeseries_id AS id, r.timestamp AS t, r.value FROM json_each(${JSON.stringify(pairs)}) j
          JOIN timeseries_record r ON r.timeseries_id = json_extract(j.value, '$[0]') AND r.timestamp = json_extract(j.value, '$[1]')`)
    : await db().query<{ id: number; t: number; value: number | null }>(Prisma.sql`
        SELECT r.timeseries_id AS id, r.timestamp AS t, r.value FROM unnest(${pairs.map((p) => p[0])}::int[], ${pairs.map((p) => p[1])}::bigint[]) AS k(id, t)
          JOIN timeseries_record r ON r.timeseries_id = k.id AND r.timestamp = k.t`);
  const out = new Map<string, number>();
  for (const r of rows) if (r.value !== null) out.set(`${r.id}:${Number(r.t)}`, r.value);
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
