import { canReadData, isEditor, type Actor } from "@/lib/auth/permissions";
import { lastSucceeded, latestJobs } from "@/lib/jobs/queue";
import { describeProcesses, processesPage, processKey } from "@/lib/processing";
import { db, Prisma } from "@/lib/db";
import { DEFAULT_LOCALE, descrIn, type Locale } from "@/lib/i18n/locales";
import {
  attachmentsPage, eventsPage, OWNER_DISPLAY_SQL, stationAccess, type StationAccess, type StationJson, stationJsonById,
} from "@/lib/stations";
import { findGroup } from "@/lib/series";
import { cachedByMetadata } from "@/lib/domain/metadata-version";
import { shownInstant, toNumber } from "@/lib/domain/serialize";
import { typeName } from "@/lib/domain/timeseries-types";
import { runMessageIn } from "@/lib/site/field-errors";

/** What the site's station, group and search pages show (api.md §16), as plain data. */

export interface SeriesSummary {
  id: number;
  type: string;
  timeStep: string;
  name: string;
  publiclyAvailable: boolean;
  first: number | null;
  last: number | null;
  count: number;
}

export interface GroupSummary {
  id: number;
  name: string;
  variable: string;
  unit: string;
  unitDescr: string;
  remarks: string;
  precision: number;
  series: SeriesSummary[];
}

export interface SeriesForUser extends SeriesSummary {
  canRead: boolean;
}


async function ownerName(ownerId: number): Promise<string> {
  const rows = await db().prisma.$queryRaw<{ name: string | null }[]>`
    SELECT ${OWNER_DISPLAY_SQL} AS name FROM lentity l
    LEFT JOIN organization o ON o.id = l.id LEFT JOIN person p ON p.id = l.id WHERE l.id = ${ownerId}`;
  return rows[0]?.name ?? "";
}

/** Whether the user may edit the station (for the "Edit" link of its public pages); no query for anonymous users. */
export async function canEditStation(user: Actor, stationId: number): Promise<boolean> {
  if (!user) return false;
  const access = await stationAccess(stationId);
  return !!access && isEditor(user, access);
}

/** The station (§4.1) with its owner's display name. */
export async function stationWithOwner(id: number): Promise<{ station: StationJson; ownerName: string } | null> {
  const station = await stationJsonById(id);
  if (!station) return null;
  return { station, ownerName: await ownerName(station.owner) };
}

function seriesSummary(t: Prisma.TimeseriesGetPayload<object>): SeriesSummary {
  return {
    id: t.id, type: typeName(t.type), timeStep: t.timeStep, name: t.name, publiclyAvailable: t.publiclyAvailable,
    first: shownInstant(t.firstTimestamp), last: shownInstant(t.lastTimestamp), count: t.recordCount,
  };
}

/**
 * What the station page lists: its types, visible groups with their series, files, images and
 * events; the lookups' descriptions in the page's language (descrIn).
 */
export async function stationDetails(station: StationJson, locale: Locale = DEFAULT_LOCALE) {
  const id = station.id;
  const p = db().prisma;
  const [stypes, groups, files, images, events, eventTypes] = await Promise.all([
    station.stype.length
      ? p.stationType.findMany({ where: { id: { in: station.stype } }, orderBy: [{ descr: "asc" }, { id: "asc" }] })
      : Promise.resolve([]),
    p.timeseriesGroup.findMany({
      where: { stationId: id, hidden: false },
      orderBy: [{ name: "asc" }, { id: "asc" }],
      include: { variable: true, unit: true, timeseries: { orderBy: [{ type: "asc" }, { id: "asc" }] } },
    }),
    attachmentsPage("files", id, 0, 500),
    attachmentsPage("images", id, 0, 500),
    eventsPage(id, 0, 500),
    p.eventType.findMany(),
  ]);
  const typeById = new Map(eventTypes.map((t) => [t.id, descrIn(locale, t)]));
  return {
    stationTypes: stypes.map((t) => descrIn(locale, t)),
    groups: groups.map((g): GroupSummary => ({
      id: g.id, name: g.name, variable: descrIn(locale, g.variable), unit: g.unit.symbol, unitDescr: g.unit.descr, remarks: g.remarks,
      precision: g.precision, series: g.timeseries.map(seriesSummary),
    })),
    files: files.map((f) => ({ id: f.id, descr: f.descr, date: f.date, remarks: f.remarks, fileName: f.fileName })),
    images: images.map((i) => ({ id: i.id, descr: i.descr, date: i.date, remarks: i.remarks })),
    events: events.map((e) => ({ id: e.id, date: e.date, type: typeById.get(e.typeId) ?? "", user: e.user, report: e.report })),
  };
}

/** A process as the group page shows it (processing.md §5). */
export interface ProcessSummary {
  id: number;
  description: string;
  enabled: boolean;
  /** When a run of it last succeeded (epoch seconds); null if none has. */
  lastSuccess: number | null;
  /** The error of its last run, if that failed: for editors of the station only. */
  failure: string | null;
}

/** The group's processes in words, with their last successful run and, for editors, a failed last run's error. */
async function groupProcesses(groupId: number, unit: string, user: Actor, access: StationAccess, locale: Locale): Promise<ProcessSummary[]> {
  const processes = await processesPage(groupId, 0, 1000);
  if (processes.length === 0) return [];
  const keys = processes.map((p) => processKey(p.id));
  const [latest, succeeded, descriptions] = await Promise.all([
    latestJobs(keys),
    lastSucceeded(keys),
    describeProcesses(processes.map((p) => p.definition), () => unit, locale),
  ]);
  const editor = isEditor(user, access);
  return processes.map((p, i) => {
    const last = latest.get(processKey(p.id));
    const done = succeeded.get(processKey(p.id));
    return {
      id: p.id,
      description: descriptions[i],
      enabled: p.enabled,
      lastSuccess: done ? Math.floor(done.getTime() / 1000) : null,
      // A run waiting for a retry still carries the error of its failed attempt.
      failure: editor && last && last.status !== "succeeded" && last.error !== null ? runMessageIn(locale, last.error) : null,
    };
  });
}

/**
 * What the group page shows of the station, the group and its variable, and who may read and edit
 * what: rows whose every write bumps the metadata version (migration 0009), so the group page
 * caches it per process under that version (issue 17, item 3), as the station list does. The
 * unit, the series (their records change with every upload, their other columns do not bump the
 * version) and the processes are read afresh for every page.
 */
export interface GroupHead {
  station: { id: number; name: string; display_timezone: string };
  access: StationAccess;
  /** The variable's description, and its Greek one (public.md §3; "" for none). */
  group: { id: number; name: string; remarks: string; hidden: boolean; precision: number; variable: string; variableEl: string; unitId: number };
}

const GROUP_HEAD_CACHE = {
  name: "group-page-head",
  maxSize: 4 * 1024 * 1024,
  sizeOf: (head: GroupHead | null) => (head ? 300 + head.station.name.length + head.group.name.length + head.group.remarks.length + head.group.variable.length + head.group.variableEl.length : 50),
};

async function readGroupHead(stationId: number, groupId: number): Promise<GroupHead | null> {
  const [station, group, access] = await Promise.all([stationJsonById(stationId), findGroup(stationId, groupId), stationAccess(stationId)]);
  if (!station || !group || !access) return null;
  const variable = await db().prisma.variable.findUnique({ where: { id: group.variableId } });
  return {
    station: { id: station.id, name: station.name, display_timezone: station.display_timezone },
    access,
    group: {
      id: group.id, name: group.name, remarks: group.remarks, hidden: group.hidden, precision: group.precision,
      variable: variable?.descr ?? "", variableEl: variable?.descrEl ?? "", unitId: group.unitId,
    },
  };
}

/** The group's series (at most 1,000, as the API's pages) with their records' extent, in one native query. */
async function groupSeries(groupId: number): Promise<SeriesSummary[]> {
  const rows = await db().query<{
    id: number; type: number; time_step: string; name: string; publicly_available: boolean;
    first_timestamp: number | null; last_timestamp: number | null; record_count: number;
  }>(Prisma.sql`SELECT id, type, time_step, name, publicly_available, first_timestamp, last_timestamp, record_count
    FROM timeseries WHERE timeseries_group_id = ${groupId} ORDER BY type, id LIMIT 1000`);
  return rows.map((t) => ({
    id: t.id, type: typeName(t.type), timeStep: t.time_step, name: t.name, publiclyAvailable: t.publicly_available,
    first: shownInstant(t.first_timestamp), last: shownInstant(t.last_timestamp), count: Number(t.record_count),
  }));
}

/** The station and group of the group page (null: no such group at this station), from the cache while the metadata is unchanged. */
export async function groupHead(stationId: number, groupId: number): Promise<GroupHead | null> {
  return (await cachedByMetadata(GROUP_HEAD_CACHE, `${stationId}/${groupId}`, () => readGroupHead(stationId, groupId))).value;
}

/**
 * The group page: the station, the group of it (else null), its series and which of them the user
 * may read, its processes; the variable in the page's language.
 */
export async function groupDetails(stationId: number, groupId: number, user: Actor, locale: Locale = DEFAULT_LOCALE) {
  const head = await groupHead(stationId, groupId);
  if (!head) return null;
  const { station, access, group } = head;
  const [[unit], series] = await Promise.all([
    db().query<{ symbol: string; descr: string }>(Prisma.sql`SELECT symbol, descr FROM unit_of_measurement WHERE id = ${group.unitId}`),
    groupSeries(groupId),
  ]);
  return {
    station,
    group: {
      id: group.id, name: group.name, remarks: group.remarks, hidden: group.hidden, precision: group.precision,
      variable: descrIn(locale, { descr: group.variable, descrEl: group.variableEl }), unit: unit?.symbol ?? "", unitDescr: unit?.descr ?? "",
    },
    series: series.map((t): SeriesForUser => ({ ...t, canRead: canReadData(user, access, t.publiclyAvailable) })),
    /** The user may edit the group (its page shows "Edit"). */
    editable: isEditor(user, access),
    processes: await groupProcesses(group.id, unit?.symbol ?? "", user, access, locale),
  };
}

/** The owners' display names of stations, by station id (the search page's list). */
export async function stationOwnerNames(stationIds: number[]): Promise<Map<number, string>> {
  if (stationIds.length === 0) return new Map();
  const rows = await db().prisma.$queryRaw<{ id: unknown; owner_name: string | null }[]>`
    SELECT s.id AS id, ${OWNER_DISPLAY_SQL} AS owner_name
    FROM station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id
    WHERE s.id IN (${Prisma.join(stationIds)})`;
  return new Map(rows.map((r) => [toNumber(r.id)!, r.owner_name ?? ""]));
}
