import { cache } from "react";
import { db, Prisma } from "@/lib/db";
import { canReadData } from "@/lib/auth/permissions";
import type { AuthUser } from "@/lib/auth/users";
import type { ChartPoint } from "@/lib/formats/chart";
import { ApiError } from "@/lib/http/errors";
import { attachmentsPage } from "@/lib/services/attachments";
import { chartBody, chartRequest } from "@/lib/services/data";
import { eventsPage } from "@/lib/services/events";
import { findGroup } from "@/lib/services/groups";
import { OWNER_DISPLAY_SQL, stationAccess, stationJsonById, type StationJson } from "@/lib/services/stations";
import { loadSeriesContext } from "@/lib/services/series-context";
import { seriesPage } from "@/lib/services/timeseries";
import { typeName } from "@/lib/services/timeseries-types";

/** What the station and group pages show, read with the lib/ services (never the HTTP API). */

/** A path id: decimal digits only (api.md §1.1); anything else is "not found". */
export function pathId(text: string): number | null {
  if (!/^\d{1,15}$/.test(text)) return null;
  const id = Number(text);
  return id > 0 && Number.isSafeInteger(id) ? id : null;
}

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

const num = (v: bigint | number | null) => (v === null ? null : Number(v));

async function ownerName(ownerId: number): Promise<string> {
  const rows = await db().prisma.$queryRaw<{ name: string | null }[]>`
    SELECT ${OWNER_DISPLAY_SQL} AS name FROM lentity l
    LEFT JOIN organization o ON o.id = l.id LEFT JOIN person p ON p.id = l.id WHERE l.id = ${ownerId}`;
  return rows[0]?.name ?? "";
}

/** The station (§4.1) with its owner's display name, cached for one request. */
export const stationWithOwner = cache(async (id: number): Promise<{ station: StationJson; ownerName: string } | null> => {
  const station = await stationJsonById(id);
  if (!station) return null;
  return { station, ownerName: await ownerName(station.owner) };
});

function seriesSummary(t: Prisma.TimeseriesGetPayload<object>): SeriesSummary {
  return {
    id: t.id, type: typeName(t.type), timeStep: t.timeStep, name: t.name, publiclyAvailable: t.publiclyAvailable,
    first: num(t.firstTimestamp), last: num(t.lastTimestamp), count: t.recordCount,
  };
}

export async function stationPageData(id: number) {
  const head = await stationWithOwner(id);
  if (!head) return null;
  const p = db().prisma;
  const [stypes, groups, files, images, events, eventTypes] = await Promise.all([
    head.station.stype.length
      ? p.stationType.findMany({ where: { id: { in: head.station.stype } }, orderBy: [{ descr: "asc" }, { id: "asc" }] })
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
  const typeById = new Map(eventTypes.map((t) => [t.id, t.descr]));
  return {
    ...head,
    stationTypes: stypes.map((t) => t.descr),
    groups: groups.map((g): GroupSummary => ({
      id: g.id, name: g.name, variable: g.variable.descr, unit: g.unit.symbol, unitDescr: g.unit.descr, remarks: g.remarks,
      precision: g.precision, series: g.timeseries.map(seriesSummary),
    })),
    files: files.map((f) => ({ id: f.id, descr: f.descr, date: f.date, remarks: f.remarks, fileName: f.fileName })),
    images: images.map((i) => ({ id: i.id, descr: i.descr, date: i.date, remarks: i.remarks })),
    events: events.map((e) => ({ id: e.id, date: e.date, type: typeById.get(e.typeId) ?? "", user: e.user, report: e.report })),
  };
}

export interface SeriesForUser extends SeriesSummary {
  canRead: boolean;
}

/** The group page: the group of this station (else null), its series and what the user may read. */
export async function groupPageData(stationId: number, groupId: number, user: AuthUser | null) {
  const [head, group, access] = await Promise.all([stationWithOwner(stationId), findGroup(stationId, groupId), stationAccess(stationId)]);
  if (!head || !group || !access) return null;
  const [variable, unit, series] = await Promise.all([
    db().prisma.variable.findUnique({ where: { id: group.variableId } }),
    db().prisma.unitOfMeasurement.findUnique({ where: { id: group.unitId } }),
    seriesPage(groupId, 0, 1000),
  ]);
  return {
    ...head,
    group: {
      id: group.id, name: group.name, remarks: group.remarks, hidden: group.hidden, precision: group.precision,
      variable: variable?.descr ?? "", unit: unit?.symbol ?? "", unitDescr: unit?.descr ?? "",
    },
    series: series.map((t): SeriesForUser => ({ ...seriesSummary(t), canRead: canReadData(user, access, t.publiclyAvailable) })),
  };
}

/** "Initial", "Aggregated (Daily mean)", … */
export function seriesLabel(s: { type: string; name: string; timeStep: string }): string {
  const parts = [s.name, s.timeStep].filter(Boolean);
  return parts.length ? `${s.type} (${parts.join(", ")})` : s.type;
}

/** "10min", "D", "irregular" */
export function timeStepLabel(step: string): string {
  return step || "irregular";
}

/** Parses "SRID=4326;POINT (lon lat)". */
export function lonLat(geom: string): [number, number] | null {
  const m = /POINT\s*\(\s*(\S+)\s+(\S+)\s*\)/.exec(geom);
  if (!m) return null;
  const lon = Number(m[1]);
  const lat = Number(m[2]);
  return Number.isFinite(lon) && Number.isFinite(lat) ? [lon, lat] : null;
}

/**
 * The first chart of the group page, read on the server so the browser draws it as soon as the
 * page is hydrated instead of asking for it afterwards. `url` is the chart/ request the browser
 * would make (`chartApiUrl`); null when the user may not read the series or the request fails,
 * and the browser then asks for it itself and shows the answer.
 */
export async function initialChart(url: string, seriesId: number, stationId: number, groupId: number, user: AuthUser | null): Promise<ChartPoint[] | null> {
  const s = await loadSeriesContext(seriesId, { stationId, groupId });
  if (!s || s.firstTimestamp === null || !canReadData(user, s.access, s.publiclyAvailable)) return null;
  try {
    const request = chartRequest(new URL(url, "http://site").searchParams, s);
    return JSON.parse(await chartBody(s, request)) as ChartPoint[];
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}
