import type { Actor } from "@/lib/auth/permissions";
import { db } from "@/lib/db";
import { records } from "@/lib/records";
import { canEditSynopticGroup, findSynopticGroupBySlug, type SynopticGroupRow } from "@/lib/synoptic/groups";
import { latestOf, readableStations, synopticStations, type LatestStationJson } from "@/lib/synoptic/latest";
import { CHART_SPAN_SECONDS } from "@/lib/synoptic/chart";
import { freshness, roundedValue, valueStatus, type Freshness } from "@/lib/synoptic/status";

/** What the synoptic pages show (synoptic.md §2), read with the services (never the HTTP API). */

export interface SynopticPage {
  group: SynopticGroupRow;
  stations: LatestStationJson[];
  /** Each time series group's precision, for the value texts (latest/ gives rounded numbers). */
  precisions: Record<number, number>;
  canEdit: boolean;
}

export async function synopticPage(slug: string, actor: Actor): Promise<SynopticPage | null> {
  const group = await findSynopticGroupBySlug(slug);
  if (!group) return null;
  const stations = await synopticStations(group.id);
  return {
    group,
    stations: await latestOf(group, stations, actor),
    precisions: Object.fromEntries(stations.flatMap((s) => s.entries.map((e) => [e.timeseriesGroupId, e.precision]))),
    canEdit: canEditSynopticGroup(actor, group),
  };
}

export interface StationChart {
  timeseriesGroup: number;
  title: string;
  subtitle: string;
  unit: string;
  precision: number;
  value: number | null;
  status: "ok" | "low" | "high" | "error" | "hidden";
  lowLimit: number | null;
  highLimit: number | null;
  defaultChartMin: number | null;
  defaultChartMax: number | null;
  /** [UTC seconds, value or null] of the 24 hours before the last common date; null when hidden. */
  points: [number, number | null][] | null;
}

export interface SynopticStationPage {
  group: SynopticGroupRow;
  station: { id: number; name: string; lastCommonDate: number | null; freshness: Freshness };
  charts: StationChart[];
}

/** A station of a synoptic group with its latest values and their last 24 hours; null when it is not in the group. */
export async function synopticStationPage(slug: string, stationId: number, actor: Actor): Promise<SynopticStationPage | null> {
  const group = await findSynopticGroupBySlug(slug);
  if (!group) return null;
  const stations = await synopticStations(group.id);
  const station = stations.find((s) => s.id === stationId);
  if (!station) return null;
  const readable = await readableStations(actor, [station]);
  const lcd = station.lastCommonDate;
  const charts = await Promise.all(station.entries.map(async (e): Promise<StationChart> => {
    const visible = readable(station, e);
    let points: [number, number | null][] | null = null;
    if (visible) {
      points = [];
      if (lcd !== null && e.seriesId !== null) {
        for await (const chunk of records().read(e.seriesId, lcd - CHART_SPAN_SECONDS, lcd)) {
          for (let i = 0; i < chunk.length; i++) points.push([chunk.timestamps[i], Number.isNaN(chunk.values[i]) ? null : chunk.values[i]]);
        }
      }
    }
    return {
      timeseriesGroup: e.timeseriesGroupId, title: e.title, subtitle: e.subtitle, unit: e.unit, precision: e.precision,
      value: visible ? roundedValue(e.value, e.precision) : null,
      status: visible ? valueStatus(e.value, e.lowLimit, e.highLimit) : "hidden",
      lowLimit: e.lowLimit, highLimit: e.highLimit, defaultChartMin: e.defaultChartMin, defaultChartMax: e.defaultChartMax, points,
    };
  }));
  return {
    group,
    station: { id: station.id, name: station.name, lastCommonDate: lcd, freshness: freshness(lcd, Math.floor(Date.now() / 1000), group.freshTimeLimit) },
    charts,
  };
}

/** Every synoptic group, by name (the index of synoptic pages). */
export async function allSynopticGroups(): Promise<{ name: string; slug: string; stations: number }[]> {
  const rows = await db().prisma.synopticGroup.findMany({ orderBy: [{ name: "asc" }, { id: "asc" }], include: { _count: { select: { stations: true } } } });
  return rows.map((r) => ({ name: r.name, slug: r.slug, stations: r._count.stations }));
}

/** A time series group a synoptic group may show (metadata, public). */
export interface GroupChoice {
  id: number;
  name: string;
  variable: string;
  unit: string;
  /** Some of its series are not public. */
  private: boolean;
}

export interface StationChoice {
  id: number;
  name: string;
  groups: GroupChoice[];
}

/** The stations given, with their groups: what the management form offers to show. */
export async function stationChoices(ids: number[]): Promise<StationChoice[]> {
  const wanted = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647);
  if (!wanted.length) return [];
  const stations = await db().prisma.station.findMany({
    where: { id: { in: wanted } },
    select: {
      id: true, name: true,
      groups: { orderBy: { id: "asc" }, select: { id: true, name: true, variable: { select: { descr: true } }, unit: { select: { symbol: true } }, timeseries: { select: { publiclyAvailable: true } } } },
    },
  });
  const byId = new Map(stations.map((s) => [s.id, s]));
  return wanted.flatMap((id) => {
    const s = byId.get(id);
    return s ? [{
      id: s.id,
      name: s.name,
      groups: s.groups.map((g) => ({ id: g.id, name: g.name, variable: g.variable.descr, unit: g.unit.symbol, private: g.timeseries.some((t) => !t.publiclyAvailable) })),
    }] : [];
  });
}
