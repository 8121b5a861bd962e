import { groupTitleIn } from "@/lib/site/group-title";
import { isSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { latestJobs } from "@/lib/jobs/queue";
import {
  describeProcesses, pathProcess, PROCESS_COLUMNS, processesPage, processFromRow, processKey, type ProcessRow, processRuns, type SiteRun, siteRunJson,
} from "@/lib/processing";
import { normalizeSearch } from "@/lib/formats/search-normalize";
import { stationActivityPage } from "@/lib/activity";
import {
  attachmentsPage, editableChild, editableStation, eventsPage, findAttachment, findEvent, LAST_UPDATE_SQL, OWNER_DISPLAY_SQL, type StationAccess, type StationJson, stationJsonById, stationQuery,
} from "@/lib/stations";
import { orNotFound } from "@/lib/domain/errors";
import { findGroup, seriesPage } from "@/lib/series";
import { shownInstant, toNumber } from "@/lib/domain/serialize";
import { containsSql } from "@/lib/db/dialect-sql";
import { typeName } from "@/lib/domain/timeseries-types";
import { usernames } from "@/lib/accounts";
import { descrIn } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";
import { activitySummaryIn, runMessageIn } from "@/lib/site/field-errors";

/**
 * What the management pages (management.md §2) read, as plain data, in few queries: the
 * stations a user may edit, a station or group with everything under it, the choices of the
 * forms' selects and searches. Each function that reads one station checks first that the actor
 * may edit it (NotFound, then PermissionDenied), as the write services do.
 */

/** A station of the manage home's list. */
export interface EditableStation {
  id: number;
  name: string;
  code: string;
  ownerName: string;
  lastUpdate: number | null;
  displayTimezone: string;
  /** A copy of another instance's station: read-only here until detached (replication.md §2). */
  replicated: boolean;
}

/** The condition "the actor may edit station s" (api.md §15.1), for a list query. */
function editableSql(actor: Actor): Prisma.Sql {
  if (!actor) return Prisma.sql`1 = 0`;
  if (isSuperuser(actor)) return Prisma.sql`1 = 1`;
  return Prisma.sql`(s.creator_id = ${actor.id} OR s.id IN (SELECT station_id FROM station_maintainer WHERE user_id = ${actor.id}))`;
}

/**
 * The stations the actor may edit that match `q` (the search language of api.md §4.5; a
 * malformed term is a ValidationFailed under `q`), by name, a page of them and the count.
 */
export async function editableStations(actor: Actor, q: string, offset: number, limit: number): Promise<{ count: number; stations: EditableStation[] }> {
  const where = Prisma.sql`${stationQuery({ q }).filter.where} AND ${editableSql(actor)}`;
  const [[counted], rows] = await Promise.all([
    db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM station s WHERE ${where}`),
    db().query<Record<string, unknown>>(Prisma.sql`
      SELECT s.id, s.name, s.code, ${OWNER_DISPLAY_SQL} AS owner_name, ${LAST_UPDATE_SQL} AS last_update, s.display_timezone, s.replicated_from
      FROM station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id
      WHERE ${where} ORDER BY s.name, s.id LIMIT ${limit} OFFSET ${offset}`),
  ]);
  return {
    count: toNumber(counted.n)!,
    stations: rows.map((r) => ({ id: toNumber(r.id)!, name: String(r.name), code: String(r.code), ownerName: String(r.owner_name ?? ""), lastUpdate: shownInstant(toNumber(r.last_update)),
      displayTimezone: String(r.display_timezone), replicated: r.replicated_from !== null && r.replicated_from !== undefined,
    })),
  };
}

/** An organization or person that may own a station, as the owner search shows it. */
export interface OwnerChoice {
  id: number;
  name: string;
  kind: "organization" | "person";
}

/** Owners whose names contain `q` (the search normalization of api.md §4.5), by display name; at most `limit`. */
export async function ownerChoices(q: string, limit: number): Promise<OwnerChoice[]> {
  const needle = normalizeSearch(q.trim());
  const match = (column: string) => (needle ? Prisma.sql`WHERE ${containsSql(Prisma.raw(column), needle)}` : Prisma.empty);
  const rows = await db().query<{ id: unknown; name: string; kind: string }>(Prisma.sql`
    SELECT id, name, kind FROM (
      SELECT o.id, CASE WHEN o.name <> '' THEN o.name ELSE o.acronym END AS name, 'organization' AS kind FROM organization o ${match("o.search_norm")}
      UNION ALL
      SELECT p.id, TRIM(p.last_name || ' ' || p.first_name) AS name, 'person' AS kind FROM person p ${match("p.search_norm")}
    ) owners ORDER BY name, id LIMIT ${limit}`);
  return rows.map((r) => ({ id: toNumber(r.id)!, name: r.name, kind: r.kind as OwnerChoice["kind"] }));
}

/** The display name of an owner (api.md §4.6); "" when there is none with that id. */
export async function ownerDisplayName(id: number): Promise<string> {
  const [row] = await db().query<{ name: string | null }>(Prisma.sql`
    SELECT ${OWNER_DISPLAY_SQL} AS name FROM lentity l LEFT JOIN organization o ON o.id = l.id LEFT JOIN person p ON p.id = l.id WHERE l.id = ${id}`);
  return row?.name ?? "";
}

export interface Choice {
  id: number;
  label: string;
}

/**
 * The choices of the forms' selects: station types, variables, units (with their variables) and
 * event types, described in the page's language (descr_el on pages in Greek, public.md §3).
 */
export async function lookupChoices(): Promise<{ stationTypes: Choice[]; variables: Choice[]; units: (Choice & { symbol: string; variables: number[] })[]; eventTypes: Choice[] }> {
  const p = db().prisma;
  const [stationTypes, variables, units, eventTypes] = await Promise.all([
    p.stationType.findMany({ orderBy: [{ descr: "asc" }, { id: "asc" }], select: { id: true, descr: true, descrEl: true } }),
    p.variable.findMany({ orderBy: [{ descr: "asc" }, { id: "asc" }], select: { id: true, descr: true, descrEl: true } }),
    p.unitOfMeasurement.findMany({ orderBy: [{ symbol: "asc" }, { id: "asc" }], select: { id: true, symbol: true, descr: true, variables: { select: { variableId: true } } } }),
    p.eventType.findMany({ orderBy: [{ descr: "asc" }, { id: "asc" }], select: { id: true, descr: true, descrEl: true } }),
  ]);
  const locale = await requestLocale();
  const descr = (r: { id: number; descr: string; descrEl: string }) => ({ id: r.id, label: descrIn(locale, r) || `#${r.id}` });
  return {
    stationTypes: stationTypes.map(descr),
    variables: variables.map(descr),
    units: units.map((u) => ({ id: u.id, label: u.descr ? `${u.symbol} (${u.descr})` : u.symbol, symbol: u.symbol, variables: u.variables.map((v) => v.variableId) })),
    eventTypes: eventTypes.map(descr),
  };
}

/** A time series as the management pages list it. */
export interface ManagedSeries {
  id: number;
  lastModified: string | null;
  type: string;
  timeStep: string;
  name: string;
  publiclyAvailable: boolean;
  count: number;
  first: number | null;
  last: number | null;
}

export interface ManagedGroup {
  id: number;
  name: string;
  hidden: boolean;
  variable: string;
  unit: string;
  series: number;
  records: number;
}

/** Everything the station's management page shows, for an editor of it. */
export async function stationForEditing(actor: Actor, id: number) {
  const access = await editableStation(actor, id);
  const p = db().prisma;
  const [station, ownerName, groups, files, images, events, activity] = await Promise.all([
    stationJsonById(id),
    db().query<{ name: string | null }>(Prisma.sql`
      SELECT ${OWNER_DISPLAY_SQL} AS name FROM station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id WHERE s.id = ${id}`),
    db().query<Record<string, unknown>>(Prisma.sql`
      SELECT g.id, g.name, g.hidden, v.descr AS variable, v.descr_el AS variable_el, u.symbol AS unit,
        (SELECT COUNT(*) FROM timeseries t WHERE t.timeseries_group_id = g.id) AS series,
        (SELECT COALESCE(SUM(t.record_count), 0) FROM timeseries t WHERE t.timeseries_group_id = g.id) AS records
      FROM timeseries_group g JOIN variable v ON v.id = g.variable_id JOIN unit_of_measurement u ON u.id = g.unit_id
      WHERE g.station_id = ${id} ORDER BY g.name, g.id`),
    attachmentsPage("files", id, 0, 500),
    attachmentsPage("images", id, 0, 500),
    eventsPage(id, 0, 500),
    stationActivityPage(id, 0, 20),
  ]);
  const s = orNotFound(station);
  const [people, eventTypes, locale] = await Promise.all([
    usernames([...s.maintainers, ...s.data_viewers]),
    p.eventType.findMany({ where: { id: { in: [...new Set(events.map((e) => e.typeId))] } }, select: { id: true, descr: true, descrEl: true } }),
    requestLocale(),
  ]);
  // Lookups in the page's language (descr_el on pages in Greek).
  const eventType = new Map(eventTypes.map((t) => [t.id, descrIn(locale, t)]));
  return {
    access,
    station: s,
    ownerName: ownerName[0]?.name ?? "",
    people: Object.fromEntries(people) as Record<number, string>,
    groups: groups.map((g): ManagedGroup => ({
      id: toNumber(g.id)!, name: String(g.name), hidden: g.hidden === true || g.hidden === 1,
      variable: descrIn(locale, { descr: String(g.variable), descrEl: g.variable_el === null || g.variable_el === undefined ? "" : String(g.variable_el) }), unit: String(g.unit),
      series: toNumber(g.series)!, records: toNumber(g.records)!,
    })),
    files, images,
    events: events.map((e) => ({ ...e, typeName: eventType.get(e.typeId) ?? "" })),
    activity: activity.map((a) => ({ ...a, summary: activitySummaryIn(locale, a.summary) })),
  };
}

/** A group of the station with its series (record counts and ranges), for an editor of the station. */
export async function groupForEditing(actor: Actor, stationId: number, groupId: number) {
  const access: StationAccess = await editableStation(actor, stationId);
  const group = orNotFound(await findGroup(stationId, groupId));
  const [station, series] = await Promise.all([stationJsonById(stationId), seriesPage(groupId, 0, 1000)]);
  return {
    access,
    station: station as StationJson,
    group,
    series: series.map((t): ManagedSeries => ({
      id: t.id, lastModified: t.lastModified?.toISOString() ?? null, type: typeName(t.type), timeStep: t.timeStep, name: t.name,
      publiclyAvailable: t.publiclyAvailable, count: t.recordCount, first: shownInstant(t.firstTimestamp), last: shownInstant(t.lastTimestamp),
    })),
  };
}

/** A process of the group page: its row, how it reads, and its newest run. */
export interface ManagedProcess {
  row: ProcessRow;
  description: string;
  lastRun: SiteRun | null;
}

/** The group's processes for its management page (the caller checked that the actor may edit the station). */
export async function processesForEditing(groupId: number, unit: string): Promise<ManagedProcess[]> {
  const rows = await processesPage(groupId, 0, 1000);
  if (rows.length === 0) return [];
  const locale = await requestLocale();
  const [latest, descriptions] = await Promise.all([latestJobs(rows.map((p) => processKey(p.id))), describeProcesses(rows.map((p) => p.definition), () => unit, locale)]);
  return rows.map((row, i) => {
    const job = latest.get(processKey(row.id));
    return { row, description: descriptions[i], lastRun: job ? siteRunJson(job, row, locale) : null };
  });
}

/** A process whose latest run failed, for the manage home. */
export interface FailedProcess {
  id: number;
  stationId: number;
  stationName: string;
  groupId: number;
  groupName: string;
  description: string;
  failedAt: Date | null;
  error: string;
}

/**
 * The processes of the stations the actor may edit whose latest run failed (after its retries),
 * most recent failure first; at most `limit`. A run queued or running since then hides it.
 */
export async function failedProcesses(actor: Actor, limit: number): Promise<FailedProcess[]> {
  const rows = await db().query<Record<string, unknown>>(Prisma.sql`
    SELECT ${PROCESS_COLUMNS}, s.id AS station_id, s.name AS station_name, g.name AS group_name, v.descr AS variable, u.symbol AS unit
    FROM process p JOIN timeseries_group g ON g.id = p.timeseries_group_id JOIN station s ON s.id = g.station_id
      JOIN variable v ON v.id = g.variable_id JOIN unit_of_measurement u ON u.id = g.unit_id
    WHERE ${editableSql(actor)}
      AND (SELECT j.status FROM job j WHERE j.id = (SELECT MAX(id) FROM job WHERE key = 'process:' || p.id)) = 'failed'`);
  if (rows.length === 0) return [];
  const processes = rows.map((r) => ({ r, process: processFromRow(r) }));
  const locale = await requestLocale();
  const [latest, descriptions] = await Promise.all([
    latestJobs(processes.map(({ process: p }) => processKey(p.id))),
    describeProcesses(processes.map(({ process: p }) => p.definition), (i) => String(processes[i].r.unit), locale),
  ]);
  return processes.flatMap(({ r, process: p }, i) => {
    const job = latest.get(processKey(p.id));
    // A run may have been queued between the two queries: then it is no longer failed.
    if (job?.status !== "failed") return [];
    return [{
      id: p.id, stationId: toNumber(r.station_id)!, stationName: String(r.station_name), groupId: p.groupId,
      groupName: String(r.group_name) || String(r.variable), description: descriptions[i],
      failedAt: job.finishedAt, error: runMessageIn(locale, job.error ?? ""),
    }];
  }).sort((a, b) => (b.failedAt?.getTime() ?? 0) - (a.failedAt?.getTime() ?? 0) || b.id - a.id).slice(0, limit);
}

/** A process with its recent runs, for an editor of its station (NotFound, then PermissionDenied). */
export async function processForEditing(actor: Actor, stationId: number, groupId: number, processId: number, runs = 20) {
  const page = await groupForEditing(actor, stationId, groupId);
  const path = { stationId, groupId, processId };
  const found = await pathProcess(path);
  const history = await processRuns(actor, path);
  const [unit, variable] = await Promise.all([
    db().prisma.unitOfMeasurement.findUnique({ where: { id: page.group.unitId } }),
    db().prisma.variable.findUnique({ where: { id: page.group.variableId } }),
  ]);
  const locale = await requestLocale();
  const [description] = await describeProcesses([found.process.definition], () => unit?.symbol ?? "", locale);
  return {
    ...page, variable: variable?.descr ?? "", process: found.process, description,
    runCount: history.count, runs: await history.sitePage(0, runs, locale),
  };
}

/** The groups of a station, as a curve interpolation's target choices. */
export async function stationGroupChoices(stationId: number): Promise<{ value: string; label: string }[]> {
  const [groups, locale] = await Promise.all([
    db().prisma.timeseriesGroup.findMany({ where: { stationId }, include: { variable: true }, orderBy: { id: "asc" } }), requestLocale()]);
  return groups.map((g) => ({ value: String(g.id), label: `${groupTitleIn(locale, { id: g.id, name: g.name, variable: descrIn(locale, g.variable) })} (#${g.id})` }));
}

/** A file, image or event of the station, for an editor of it (NotFound first). */
export async function childForEditing(actor: Actor, kind: "files" | "images" | "events", stationId: number, id: number) {
  const { child } = kind === "events"
    ? await editableChild(actor, stationId, (s) => findEvent(s.id, id))
    : await editableChild(actor, stationId, (s) => findAttachment(kind, s.id, id));
  return { child, station: (await stationJsonById(stationId))! };
}
