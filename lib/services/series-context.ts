import { db } from "@/lib/db";
import type { StationAccess } from "@/lib/services/stations";

/** What the data endpoints need to know about a series, loaded at once. */
export interface SeriesContext {
  id: number;
  version: number;
  lastModified: Date | null;
  publiclyAvailable: boolean;
  timeStep: string;
  recordCount: number;
  firstTimestamp: number | null;
  lastTimestamp: number | null;
  lastValue: number | null;
  lastFlags: string | null;
  group: { id: number; name: string; remarks: string; precision: number; lastModified: Date | null };
  station: { id: number; name: string; displayTimezone: string; lon: number; lat: number; altitude: number | null; lastModified: Date | null };
  access: StationAccess;
  variable: { descr: string; lastModified: Date | null };
  unit: { symbol: string; lastModified: Date | null };
}

/** The series by id, restricted to a station (and group) when the path names them. */
export async function loadSeriesContext(id: number, path: { stationId?: number; groupId?: number } = {}): Promise<SeriesContext | null> {
  const t = await db().prisma.timeseries.findFirst({
    where: { id, ...(path.groupId !== undefined ? { groupId: path.groupId } : {}), ...(path.stationId !== undefined ? { group: { stationId: path.stationId } } : {}) },
    include: {
      group: {
        include: {
          variable: { select: { descr: true, lastModified: true } },
          unit: { select: { symbol: true, lastModified: true } },
          station: {
            select: {
              id: true, name: true, displayTimezone: true, lon: true, lat: true, altitude: true, lastModified: true, creatorId: true,
              maintainers: { select: { userId: true } }, dataViewers: { select: { userId: true } },
            },
          },
        },
      },
    },
  });
  if (!t) return null;
  const { group: g } = t;
  const s = g.station;
  return {
    id: t.id,
    version: t.version,
    lastModified: t.lastModified,
    publiclyAvailable: t.publiclyAvailable,
    timeStep: t.timeStep,
    recordCount: t.recordCount,
    firstTimestamp: t.firstTimestamp === null ? null : Number(t.firstTimestamp),
    lastTimestamp: t.lastTimestamp === null ? null : Number(t.lastTimestamp),
    lastValue: t.lastValue,
    lastFlags: t.lastFlags,
    group: { id: g.id, name: g.name, remarks: g.remarks, precision: g.precision, lastModified: g.lastModified },
    station: { id: s.id, name: s.name, displayTimezone: s.displayTimezone, lon: s.lon, lat: s.lat, altitude: s.altitude, lastModified: s.lastModified },
    access: { id: s.id, creatorId: s.creatorId, maintainers: s.maintainers.map((m) => m.userId), dataViewers: s.dataViewers.map((v) => v.userId) },
    variable: g.variable,
    unit: g.unit,
  };
}

/** The latest last_modified among the series, its group, station, variable and unit (formats.md §9.4). */
export function latestModification(s: SeriesContext): Date {
  const times = [s.lastModified, s.group.lastModified, s.station.lastModified, s.variable.lastModified, s.unit.lastModified]
    .filter((d): d is Date => d !== null)
    .map((d) => d.getTime());
  return new Date(times.length ? Math.max(...times) : 0);
}
