import { canReadData, ensureUser, isSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma, type Tx } from "@/lib/db";
import { MSG } from "@/lib/http/fields";
import { ErrorCollector, NotFound, PermissionDenied, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { isDatabaseId } from "@/lib/domain/refs";
import { isoMillis } from "@/lib/domain/serialize";
import { type ChangeOptions, ensureUnchanged } from "@/lib/domain/concurrency";
import { rowsForIds, writeExactFloats } from "@/lib/db/dialect-sql";
import { stationAccesses } from "@/lib/stations";
import {
  SYNOPTIC_RULES, type SynopticGroupValues, type SynopticRateOfChange, type SynopticSeriesDefinition, type SynopticStationDefinition,
} from "@/lib/synoptic/config";

/**
 * Synoptic groups (synoptic.md §1): read by everyone; created by any user, who becomes its
 * creator; changed and deleted by its creator and superusers. A save keeps the rows of the
 * stations and series that stay, so that their alarm state (lib/synoptic/alarms.ts)
 * survives edits.
 */
export interface SynopticGroupRow {
  id: number;
  lastModified: Date | null;
  name: string;
  slug: string;
  displayTimezone: string;
  freshTimeLimit: number;
  earlyWarningEmails: string[];
  creatorId: number | null;
}

/** The object of synoptic.md §1, keys in output order. */
export interface SynopticGroupJson extends SynopticGroupValues {
  id: number;
  last_modified: string | null;
}

type GroupRecord = { id: number; lastModified: Date | null; name: string; slug: string; displayTimezone: string; freshTimeLimit: number; earlyWarningEmails: string; creatorId: number | null };

function toRow(r: GroupRecord): SynopticGroupRow {
  return { ...r, earlyWarningEmails: JSON.parse(r.earlyWarningEmails) as string[] };
}

/** The columns of a SynopticGroupRow, of `synoptic_group g` (rowOf reads them). */
export const SYNOPTIC_GROUP_COLUMNS = Prisma.raw(
  "g.id, g.last_modified, g.name, g.slug, g.display_timezone, g.fresh_time_limit, g.early_warning_emails, g.creator_id");

type NativeGroupRow = {
  id: number; last_modified: Date | null; name: string; slug: string; display_timezone: string; fresh_time_limit: number;
  early_warning_emails: string; creator_id: number | null;
};

/** A row of SYNOPTIC_GROUP_COLUMNS (db().query gives dates as Dates on both databases). */
export function rowOf(r: NativeGroupRow): SynopticGroupRow {
  return {
    id: Number(r.id), lastModified: r.last_modified, name: r.name, slug: r.slug, displayTimezone: r.display_timezone,
    freshTimeLimit: Number(r.fresh_time_limit), earlyWarningEmails: JSON.parse(r.early_warning_emails) as string[],
    creatorId: r.creator_id === null ? null : Number(r.creator_id),
  };
}

// On the native driver, not Prisma: latest/, the pages and every alarm evaluation start here, and
// Prisma's own cost per query is several times the query's.
export async function findSynopticGroup(id: number): Promise<SynopticGroupRow | null> {
  if (!isDatabaseId(id)) return null;
  const [r] = await db().query<NativeGroupRow>(Prisma.sql`SELECT ${SYNOPTIC_GROUP_COLUMNS} FROM synoptic_group g WHERE g.id = ${id}`);
  return r ? rowOf(r) : null;
}

export async function findSynopticGroupBySlug(slug: string): Promise<SynopticGroupRow | null> {
  const [r] = await db().query<NativeGroupRow>(Prisma.sql`SELECT ${SYNOPTIC_GROUP_COLUMNS} FROM synoptic_group g WHERE g.slug = ${slug}`);
  return r ? rowOf(r) : null;
}

export function canEditSynopticGroup(actor: Actor, group: { creatorId: number | null }): boolean {
  return isSuperuser(actor) || (!!actor && actor.isActive && group.creatorId === actor.id);
}

/** The definitions of the stations of several synoptic groups, in order. */
async function stationDefinitions(groupIds: number[]): Promise<Map<number, SynopticStationDefinition[]>> {
  const out = new Map<number, SynopticStationDefinition[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db().query<{
    synoptic_group_id: number; station_id: number; station_row: number; timeseries_group_id: number | null; title: string | null; subtitle: string | null;
    low_limit: number | null; high_limit: number | null; default_chart_min: number | null; default_chart_max: number | null; rate_of_change: string | null;
  }>(Prisma.sql`
    SELECT gs.synoptic_group_id, gs.station_id, gs.id AS station_row, e.timeseries_group_id, e.title, e.subtitle, e.low_limit, e.high_limit,
      e.default_chart_min, e.default_chart_max, e.rate_of_change
    FROM synoptic_group_station gs LEFT JOIN synoptic_timeseries_group e ON e.synoptic_group_station_id = gs.id
    WHERE gs.synoptic_group_id IN (${Prisma.join(groupIds)})
    ORDER BY gs.synoptic_group_id, gs."order", gs.id, e."order", e.id`);
  let stationRow: number | null = null;
  let definition: SynopticStationDefinition = { station: 0, timeseries_groups: [] };
  for (const r of rows) {
    if (stationRow !== r.station_row) {
      stationRow = r.station_row;
      definition = { station: r.station_id, timeseries_groups: [] };
      out.get(r.synoptic_group_id)!.push(definition);
    }
    if (r.timeseries_group_id === null) continue;
    definition.timeseries_groups.push({
      timeseries_group: r.timeseries_group_id,
      title: r.title ?? "",
      subtitle: r.subtitle ?? "",
      low_limit: r.low_limit,
      high_limit: r.high_limit,
      default_chart_min: r.default_chart_min,
      default_chart_max: r.default_chart_max,
      rate_of_change: r.rate_of_change === null ? null : (JSON.parse(r.rate_of_change) as SynopticRateOfChange),
    });
  }
  return out;
}

function groupJson(r: SynopticGroupRow, stations: SynopticStationDefinition[]): SynopticGroupJson {
  return {
    id: r.id,
    last_modified: isoMillis(r.lastModified),
    name: r.name,
    slug: r.slug,
    display_timezone: r.displayTimezone,
    fresh_time_limit: r.freshTimeLimit,
    early_warning_emails: r.earlyWarningEmails,
    stations,
  };
}

export async function synopticGroupJson(id: number): Promise<SynopticGroupJson | null> {
  const row = await findSynopticGroup(id);
  if (!row) return null;
  return groupJson(row, (await stationDefinitions([row.id])).get(row.id)!);
}

export function countSynopticGroups(): Promise<number> {
  return db().prisma.synopticGroup.count();
}

/** A page of the list, ordered by name, then id. */
export async function listSynopticGroups(offset: number, limit: number): Promise<SynopticGroupJson[]> {
  const rows = (await db().prisma.synopticGroup.findMany({ orderBy: [{ name: "asc" }, { id: "asc" }], skip: offset, take: limit })).map(toRow);
  const stations = await stationDefinitions(rows.map((r) => r.id));
  return rows.map((r) => groupJson(r, stations.get(r.id)!));
}

/** The synoptic groups the actor may edit (all for a superuser), by name: for the management pages. */
export async function editableSynopticGroups(actor: Actor): Promise<(SynopticGroupRow & { stationCount: number })[]> {
  if (!actor) return [];
  const rows = await db().prisma.synopticGroup.findMany({
    where: isSuperuser(actor) ? {} : { creatorId: actor.id },
    orderBy: [{ name: "asc" }, { id: "asc" }],
    include: { _count: { select: { stations: true } } },
  });
  return rows.map(({ _count, ...r }) => ({ ...toRow(r), stationCount: _count.stations }));
}

/** The synoptic group, if the actor may change it: 404 first, then 401/403 (api.md §1.7). */
export async function editableSynopticGroup(actor: Actor, id: number): Promise<SynopticGroupRow> {
  const row = await findSynopticGroup(id);
  if (!row) throw new NotFound();
  if (!canEditSynopticGroup(actor, row)) throw new PermissionDenied(actor === null);
  return row;
}

/**
 * The rules of the stations that need the database: stations and groups exist, each group is
 * of its station, and the actor may read the data of the groups whose series are private (their
 * values would otherwise reach the page's editors and the warning e-mails).
 */
async function checkStations(actor: Actor, stations: SynopticStationDefinition[], errors: ErrorCollector): Promise<void> {
  const stationIds = [...new Set(stations.map((s) => s.station))].filter(isDatabaseId);
  const groupIds = [...new Set(stations.flatMap((s) => s.timeseries_groups.map((g) => g.timeseries_group)))].filter(isDatabaseId);
  const [access, groupRows] = await Promise.all([
    stationAccesses(stationIds),
    rowsForIds(groupIds, (slice) => db().query<{ id: number; station_id: number; private_series: number }>(Prisma.sql`
      SELECT g.id, g.station_id,
        (SELECT COUNT(*) FROM timeseries t WHERE t.timeseries_group_id = g.id AND t.publicly_available = ${false}) AS private_series
      FROM timeseries_group g WHERE g.id IN (${Prisma.join(slice)})`)),
  ]);
  const groups = new Map(groupRows.map((r) => [r.id, r]));
  stations.forEach((s, i) => {
    const station = access.get(s.station);
    if (!station) {
      errors.add("stations", `stations[${i}].station: ${MSG.pkMissing(s.station)}`);
      return;
    }
    s.timeseries_groups.forEach((g, j) => {
      const at = `stations[${i}].timeseries_groups[${j}].timeseries_group`;
      const group = groups.get(g.timeseries_group);
      if (!group) errors.add("stations", `${at}: ${MSG.pkMissing(g.timeseries_group)}`);
      else if (group.station_id !== s.station) errors.add("stations", `${at}: ${SYNOPTIC_RULES.notOfStation(g.timeseries_group, s.station)}`);
      else if (Number(group.private_series) > 0 && !canReadData(actor, station, false)) errors.add("stations", `${at}: ${SYNOPTIC_RULES.privateData(g.timeseries_group)}`);
    });
  });
}

async function checkValues(actor: Actor, values: Partial<SynopticGroupValues>, exceptId?: number): Promise<void> {
  const errors = new ErrorCollector();
  if (values.slug !== undefined) {
    const clash = await db().prisma.synopticGroup.findFirst({ where: { slug: values.slug, ...(exceptId ? { id: { not: exceptId } } : {}) }, select: { id: true } });
    if (clash) errors.add("slug", SYNOPTIC_RULES.slugTaken);
  }
  if (values.stations) await checkStations(actor, values.stations, errors);
  errors.throwIfAny();
}

/** Writes under the slug's uniqueness; a race lost between the check and the write ends as the check's error. */
async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") throw ValidationFailed.field("slug", SYNOPTIC_RULES.slugTaken);
    throw e;
  }
}

const groupColumns = (v: Partial<SynopticGroupValues>) => ({
  ...(v.name !== undefined ? { name: v.name } : {}),
  ...(v.slug !== undefined ? { slug: v.slug } : {}),
  ...(v.display_timezone !== undefined ? { displayTimezone: v.display_timezone } : {}),
  ...(v.fresh_time_limit !== undefined ? { freshTimeLimit: v.fresh_time_limit } : {}),
  ...(v.early_warning_emails !== undefined ? { earlyWarningEmails: JSON.stringify(v.early_warning_emails) } : {}),
});

/** A new synoptic group of the actor; its id. */
export async function createSynopticGroup(actor: Actor, given: Given<SynopticGroupValues>): Promise<number> {
  const user = ensureUser(actor);
  const values = await valuesOf(given, undefined);
  await checkValues(actor, values);
  return uniquely(() => db().write(async (tx) => {
    const { id } = await tx.synopticGroup.create({
      data: { ...groupColumns(values), name: values.name, slug: values.slug, freshTimeLimit: values.fresh_time_limit, creatorId: user.id, lastModified: new Date() },
    });
    await syncStations(tx, id, values.stations);
    return id;
  }));
}

/**
 * PUT and PATCH: the fields given replace the stored ones; the others stay. With
 * `options.unchangedSince` (a site form's `last_modified`), a synoptic group changed since then is
 * not overwritten (StaleObject), as every other management form's object (lib/domain/concurrency.ts).
 */
export async function updateSynopticGroup(actor: Actor, id: number, given: Given<Partial<SynopticGroupValues>, SynopticGroupRow>, options: ChangeOptions = {}): Promise<void> {
  const row = await editableSynopticGroup(actor, id);
  const values = await valuesOf(given, row);
  await checkValues(actor, values, row.id);
  await uniquely(() => db().write(async (tx) => {
    await ensureUnchanged(tx, "synopticGroup", row.id, options, "synoptic group");
    await tx.synopticGroup.update({ where: { id: row.id }, data: { ...groupColumns(values), lastModified: new Date() } });
    if (values.stations) await syncStations(tx, row.id, values.stations);
  }));
}

/** What a delete takes with it (management.md: deletes say what they take). */
export async function synopticGroupContents(id: number): Promise<{ stations: number; series: number; warnings: number }> {
  const p = db().prisma;
  const [stations, series, warnings] = await Promise.all([
    p.synopticGroupStation.count({ where: { synopticGroupId: id } }),
    p.synopticTimeseriesGroup.count({ where: { synopticGroupStation: { synopticGroupId: id } } }),
    p.synopticWarning.count({ where: { synopticGroupId: id } }),
  ]);
  return { stations, series, warnings };
}

export async function deleteSynopticGroup(actor: Actor, id: number): Promise<void> {
  const row = await editableSynopticGroup(actor, id);
  await db().write((tx) => tx.synopticGroup.delete({ where: { id: row.id } }));
}

/**
 * Makes the stored stations and series of a synoptic group those of `stations`: rows of stations
 * and series that stay are updated in place (keeping their alarm state), the others deleted or
 * inserted.
 */
async function syncStations(tx: Tx, groupId: number, stations: SynopticStationDefinition[]): Promise<void> {
  const storedStations = await tx.synopticGroupStation.findMany({ where: { synopticGroupId: groupId }, include: { groups: true } });
  const byStation = new Map(storedStations.map((s) => [s.stationId, s]));
  const kept = new Set(stations.map((s) => s.station));
  const gone = storedStations.filter((s) => !kept.has(s.stationId)).map((s) => s.id);
  if (gone.length) await tx.synopticGroupStation.deleteMany({ where: { id: { in: gone } } });
  for (const [order, definition] of stations.entries()) {
    let stored = byStation.get(definition.station);
    if (!stored) stored = { ...(await tx.synopticGroupStation.create({ data: { synopticGroupId: groupId, stationId: definition.station, order } })), groups: [] };
    else if (stored.order !== order) await tx.synopticGroupStation.update({ where: { id: stored.id }, data: { order } });
    await syncSeries(tx, stored.id, stored.groups, definition.timeseries_groups);
  }
}

type StoredSeries = { id: number; timeseriesGroupId: number; order: number; title: string; subtitle: string; lowLimit: number | null; highLimit: number | null;
  defaultChartMin: number | null; defaultChartMax: number | null; rateOfChange: string | null };

function seriesColumns(s: SynopticSeriesDefinition, order: number) {
  return {
    order, title: s.title, subtitle: s.subtitle, lowLimit: s.low_limit, highLimit: s.high_limit, defaultChartMin: s.default_chart_min,
    defaultChartMax: s.default_chart_max, rateOfChange: s.rate_of_change === null ? null : JSON.stringify(s.rate_of_change),
  };
}

async function syncSeries(tx: Tx, stationRowId: number, stored: StoredSeries[], wanted: SynopticSeriesDefinition[]): Promise<void> {
  const byGroup = new Map(stored.map((s) => [s.timeseriesGroupId, s]));
  const kept = new Set(wanted.map((s) => s.timeseries_group));
  const gone = stored.filter((s) => !kept.has(s.timeseriesGroupId)).map((s) => s.id);
  if (gone.length) await tx.synopticTimeseriesGroup.deleteMany({ where: { id: { in: gone } } });
  for (const [order, definition] of wanted.entries()) {
    const columns = seriesColumns(definition, order);
    const old = byGroup.get(definition.timeseries_group);
    if (old && Object.entries(columns).every(([k, v]) => old[k as keyof StoredSeries] === v)) continue;
    // New limits judge the latest values again at the next evaluation, as they did before alarms waited for newer records.
    const limitsChanged = old && (old.lowLimit !== columns.lowLimit || old.highLimit !== columns.highLimit || old.rateOfChange !== columns.rateOfChange);
    const { id } = old
      ? await tx.synopticTimeseriesGroup.update({ where: { id: old.id }, data: { ...columns, ...(limitsChanged ? { evaluatedThrough: null } : {}) }, select: { id: true } })
      : await tx.synopticTimeseriesGroup.create({ data: { ...columns, synopticGroupStationId: stationRowId, timeseriesGroupId: definition.timeseries_group }, select: { id: true } });
    // Prisma rounds float arguments to about 16 digits: the limits are written again exactly.
    await writeExactFloats(tx, "synoptic_timeseries_group", id, {
      low_limit: definition.low_limit, high_limit: definition.high_limit,
      default_chart_min: definition.default_chart_min, default_chart_max: definition.default_chart_max,
    });
  }
}
