import { db, Prisma } from "@/lib/db";
import { formatPointEwkt } from "@/lib/geo/wkt";
import { allStationsJson, attachmentJson, eventJson, stationJsonById } from "@/lib/stations";
import { groupJson, olderShapeJson } from "@/lib/series";
import { descrJson, fileTypeJson, gareaJson, organizationJson, personJson, unitJson } from "@/lib/lookups";
import { isoMillis } from "@/lib/domain/serialize";

/**
 * The objects of the model-named endpoints (legacy.md §2.1): how all objects (by id) or one
 * object of a model are read, with the current interface's JSON shapes. Lists take one query
 * per model (two for models with a joined table). Their field order is lib/legacy/models.ts's.
 */
export type LegacyObject = Record<string, unknown>;

export interface LegacyReader {
  list(origin: string): Promise<LegacyObject[]>;
  get(id: number, origin: string): Promise<LegacyObject | null>;
}

const BY_ID = { id: "asc" } as const;
const UNIT_INCLUDE = { variables: { select: { variableId: true } } } as const;

/** A model read through Prisma. */
function prismaModel<R>(
  findMany: () => Promise<R[]>,
  findOne: (id: number) => Promise<R | null>,
  toJson: (row: R, origin: string) => object,
): LegacyReader {
  return {
    list: async (origin) => (await findMany()).map((r) => toJson(r, origin) as LegacyObject),
    get: async (id, origin) => {
      const row = await findOne(id);
      return row ? (toJson(row, origin) as LegacyObject) : null;
    },
  };
}

/** A model read with one native query; `where` is empty for the list. */
function sqlModel<R>(query: (where: Prisma.Sql) => Prisma.Sql, toJson: (row: R) => LegacyObject, idColumn: string): LegacyReader {
  return {
    list: async () => (await db().query<R>(query(Prisma.empty))).map(toJson),
    get: async (id) => {
      const [row] = await db().query<R>(query(Prisma.sql`AND ${Prisma.raw(idColumn)} = ${id}`));
      return row ? toJson(row) : null;
    },
  };
}

interface GentityRow {
  id: number; kind: string; last_modified: Date | null; name: string; code: string; remarks: string;
  lon: number | null; lat: number | null; geom: string | null;
}

interface GpointRow {
  id: number; last_modified: Date | null; name: string; code: string; remarks: string; lon: number; lat: number; altitude: number | null;
}

interface LentityRow {
  id: number; last_modified: Date | null; remarks: string;
}

function readers(): Record<LegacyModelName, LegacyReader> {
  const p = db().prisma;
  return {
    Station: {
      list: async () => (await allStationsJson()) as unknown as LegacyObject[],
      get: async (id) => (await stationJsonById(id)) as unknown as LegacyObject | null,
    },
    Gentity: sqlModel<GentityRow>((where) => Prisma.sql`
      SELECT g.id, g.kind, COALESCE(s.last_modified, a.last_modified) AS last_modified, COALESCE(s.name, a.name) AS name,
        COALESCE(s.code, a.code) AS code, COALESCE(s.remarks, a.remarks) AS remarks, s.lon, s.lat, a.geom
      FROM gentity g LEFT JOIN station s ON s.id = g.id LEFT JOIN garea a ON a.id = g.id
      WHERE (s.id IS NOT NULL OR a.id IS NOT NULL) ${where} ORDER BY g.id`, (r) => ({
      id: r.id, last_modified: isoMillis(r.last_modified), name: r.name, code: r.code, remarks: r.remarks,
      geom: r.lon !== null && r.lat !== null ? formatPointEwkt(r.lon, r.lat) : r.geom,
    }), "g.id"),
    Gpoint: sqlModel<GpointRow>((where) => Prisma.sql`
      SELECT s.id, s.last_modified, s.name, s.code, s.remarks, s.lon, s.lat, s.altitude FROM station s
      WHERE 1 = 1 ${where} ORDER BY s.id`, (r) => ({
      id: r.id, last_modified: isoMillis(r.last_modified), name: r.name, code: r.code, remarks: r.remarks,
      geom: formatPointEwkt(r.lon, r.lat), altitude: r.altitude,
    }), "s.id"),
    Garea: prismaModel(() => p.garea.findMany({ orderBy: BY_ID }), (id) => p.garea.findUnique({ where: { id } }), gareaJson),
    Timeseries: prismaModel(
      () => p.timeseries.findMany({ orderBy: BY_ID, include: { group: true } }),
      (id) => p.timeseries.findUnique({ where: { id }, include: { group: true } }),
      (t) => olderShapeJson(t)),
    TimeseriesGroup: prismaModel(
      () => p.timeseriesGroup.findMany({ orderBy: BY_ID }), (id) => p.timeseriesGroup.findUnique({ where: { id } }), groupJson),
    Variable: prismaModel(() => p.variable.findMany({ orderBy: BY_ID }), (id) => p.variable.findUnique({ where: { id } }), descrJson),
    UnitOfMeasurement: prismaModel(
      () => p.unitOfMeasurement.findMany({ orderBy: BY_ID, include: UNIT_INCLUDE }),
      (id) => p.unitOfMeasurement.findUnique({ where: { id }, include: UNIT_INCLUDE }), unitJson),
    Organization: prismaModel(
      () => p.organization.findMany({ orderBy: BY_ID }), (id) => p.organization.findUnique({ where: { id } }), organizationJson),
    Person: prismaModel(
      () => p.person.findMany({ orderBy: BY_ID }), (id) => p.person.findUnique({ where: { id } }), personJson),
    Lentity: sqlModel<LentityRow>((where) => Prisma.sql`
      SELECT l.id, COALESCE(o.last_modified, p.last_modified) AS last_modified, COALESCE(o.remarks, p.remarks) AS remarks
      FROM lentity l LEFT JOIN organization o ON o.id = l.id LEFT JOIN person p ON p.id = l.id
      WHERE (o.id IS NOT NULL OR p.id IS NOT NULL) ${where} ORDER BY l.id`, (r) => ({
      id: r.id, last_modified: isoMillis(r.last_modified), remarks: r.remarks,
    }), "l.id"),
    StationType: prismaModel(() => p.stationType.findMany({ orderBy: BY_ID }), (id) => p.stationType.findUnique({ where: { id } }), descrJson),
    EventType: prismaModel(() => p.eventType.findMany({ orderBy: BY_ID }), (id) => p.eventType.findUnique({ where: { id } }), descrJson),
    FileType: prismaModel(
      () => p.fileType.findMany({ orderBy: BY_ID }), (id) => p.fileType.findUnique({ where: { id } }), fileTypeJson),
    GentityFile: prismaModel(
      () => p.gentityFile.findMany({ orderBy: BY_ID }), (id) => p.gentityFile.findUnique({ where: { id } }),
      (row, origin) => attachmentJson("files", row, origin)),
    GentityEvent: prismaModel(
      () => p.event.findMany({ orderBy: BY_ID }), (id) => p.event.findUnique({ where: { id } }), eventJson),
  };
}

/** The model names of legacy.md §2.1, in the table's order. */
export const LEGACY_MODEL_NAMES = [
  "Station", "Gentity", "Gpoint", "Garea", "Timeseries", "TimeseriesGroup", "Variable", "UnitOfMeasurement", "Organization",
  "Person", "Lentity", "StationType", "EventType", "FileType", "GentityFile", "GentityEvent",
] as const;
export type LegacyModelName = (typeof LEGACY_MODEL_NAMES)[number];

export function legacyReader(name: LegacyModelName): LegacyReader {
  return readers()[name];
}
