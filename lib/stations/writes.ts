import { rm } from "node:fs/promises";
import { ensureStationCreator, type Actor } from "@/lib/auth/permissions";
import { changeStatements } from "@/lib/jobs/registry";
import { db, type Tx } from "@/lib/db";
import { changedFields, changeSummary, named, recordActivity } from "@/lib/domain/activity-log";
import { ensureUnchanged, type ChangeOptions } from "@/lib/domain/concurrency";
import { contentsText, stationContents } from "@/lib/stations/contents";
import { valuesOf, type Given } from "@/lib/domain/given";
import { mediaPath } from "@/lib/stations/media";
import { stationNorm } from "@/lib/domain/norms";
import { writeExactFloats } from "@/lib/db/dialect-sql";
import { editableStation, type StationAccess } from "@/lib/stations/stations";

/**
 * Writes of stations (api.md §4.3) for an actor: who may create, change and delete (api.md §15).
 * The values are parsed (lib/stations/fields.ts); references to other objects are checked
 * there too.
 */
export interface StationData {
  name: string;
  code: string;
  remarks: string;
  originalSrid: number | null;
  altitude: number | null;
  lon: number;
  lat: number;
  displayTimezone: string;
  startDate: string | null;
  endDate: string | null;
  ownerId: number;
  overseer: string;
  maintainers: number[];
  stype: number[];
  dataViewers: number[];
}

type StationColumns = Omit<StationData, "maintainers" | "stype" | "dataViewers">;

function columns<T extends Partial<StationData>>(data: T): Omit<T, "maintainers" | "stype" | "dataViewers"> {
  const { maintainers: _m, stype: _s, dataViewers: _d, ...scalar } = data;
  return scalar;
}

async function replaceRelations(tx: Tx, stationId: number, data: Partial<StationData>): Promise<void> {
  if (data.maintainers) {
    await tx.stationMaintainer.deleteMany({ where: { stationId } });
    await tx.stationMaintainer.createMany({ data: data.maintainers.map((userId) => ({ stationId, userId })) });
  }
  if (data.dataViewers) {
    await tx.stationDataViewer.deleteMany({ where: { stationId } });
    await tx.stationDataViewer.createMany({ data: data.dataViewers.map((userId) => ({ stationId, userId })) });
  }
  if (data.stype) {
    await tx.stationStype.deleteMany({ where: { stationId } });
    await tx.stationStype.createMany({ data: data.stype.map((stationTypeId) => ({ stationId, stationTypeId })) });
  }
}

/** A new station created by the actor, who becomes its creator; its id. */
export async function createStation(actor: Actor, given: Given<StationData>): Promise<number> {
  const creator = ensureStationCreator(actor);
  const data = await valuesOf(given, undefined);
  return db().write(async (tx) => {
    const id = await insertStationRow(tx, data, { creatorId: creator.id });
    await recordActivity(tx, actor, { action: "create", objectType: "station", objectId: id, stationId: id, summary: `Created station ${named(data.name, id)}` });
    return id;
  });
}

/** Inserts a station without a permission check: for seeding (lib/demo, scripts, tests). */
export async function insertStation(data: StationData, creatorId: number | null): Promise<number> {
  return db().write((tx) => insertStationRow(tx, data, { creatorId }));
}

/** Who a new station row comes from: the user who created it, or the replication source it is a copy of. */
export interface StationOrigin {
  creatorId: number | null;
  replicatedFrom?: number | null;
  /** Its last_modified (a replication run writes one instant for all it writes). */
  at?: Date;
}

/**
 * The one way a station row is inserted (a service's create, seeding, replication's copy): its
 * gentity, the row with its search column, its relations and its exact coordinates; its id.
 */
export async function insertStationRow(tx: Tx, data: StationData, origin: StationOrigin): Promise<number> {
  const gentity = await tx.gentity.create({ data: { kind: "station" } });
  await tx.station.create({
    data: {
      ...(columns(data) as StationColumns), id: gentity.id, creatorId: origin.creatorId, replicatedFrom: origin.replicatedFrom ?? null,
      lastModified: origin.at ?? new Date(), searchNorm: stationNorm(data),
    },
  });
  await replaceRelations(tx, gentity.id, data);
  await writeExactFloats(tx, "station", gentity.id, { lon: data.lon, lat: data.lat, altitude: data.altitude });
  return gentity.id;
}

/** The API names of StationData's keys, for the activity log. */
const FIELD_NAMES: Record<string, string> = {
  originalSrid: "original_srid", lon: "geom", lat: "geom", displayTimezone: "display_timezone", startDate: "start_date",
  endDate: "end_date", ownerId: "owner", dataViewers: "data_viewers",
};

/** Changes the fields given; relations given are replaced whole. */
export async function updateStation(actor: Actor, id: number, given: Given<Partial<StationData>, StationAccess>, options?: ChangeOptions): Promise<void> {
  const station = await editableStation(actor, id);
  const data = await valuesOf(given, station);
  await db().write(async (tx) => {
    await ensureUnchanged(tx, "station", id, options, "station");
    const current = await tx.station.findUniqueOrThrow({
      where: { id },
      include: { maintainers: { select: { userId: true } }, dataViewers: { select: { userId: true } }, stypes: { select: { stationTypeId: true } } },
    });
    const before = {
      ...current, maintainers: current.maintainers.map((m) => m.userId), dataViewers: current.dataViewers.map((v) => v.userId),
      stype: current.stypes.map((t) => t.stationTypeId),
    };
    const merged = { ...current, ...columns(data) };
    await tx.station.update({
      where: { id },
      data: { ...columns(data), lastModified: new Date(), searchNorm: stationNorm(merged) },
    });
    await replaceRelations(tx, id, data);
    await writeExactFloats(tx, "station", id, { lon: data.lon, lat: data.lat, altitude: data.altitude });
    const fields = changedFields(before, data, FIELD_NAMES);
    await recordActivity(tx, actor, { action: "change", objectType: "station", objectId: id, stationId: id, summary: changeSummary(`station ${named(merged.name, id)}`, fields) });
    // Aggregations work in the station's local time: another zone means other intervals.
    const changed = data.displayTimezone !== undefined && data.displayTimezone !== current.displayTimezone;
    if (changed) for (const sql of changeStatements({ kind: "station-zone-changed", stationId: id })) await tx.$executeRaw(sql);
  });
}

/** Deletes a station and everything under it: groups, series, records, events, files and their bytes. */
export async function deleteStation(actor: Actor, id: number): Promise<void> {
  await editableStation(actor, id);
  const stored = await db().write(async (tx) => {
    const [files, images, row, contents] = await Promise.all([
      tx.gentityFile.findMany({ where: { stationId: id }, select: { storedName: true } }),
      tx.gentityImage.findMany({ where: { stationId: id }, select: { storedName: true } }),
      tx.station.findUniqueOrThrow({ where: { id }, select: { name: true } }),
      stationContents(id, tx),
    ]);
    await tx.gentity.delete({ where: { id } });
    const taken = contentsText(contents);
    await recordActivity(tx, actor, {
      action: "delete", objectType: "station", objectId: id, stationId: id, summary: `Deleted station ${named(row.name, id)}${taken ? ` with ${taken}` : ""}`,
    });
    return [...files, ...images].map((f) => f.storedName).filter(Boolean);
  });
  await Promise.all(stored.map((name) => rm(mediaPath(name), { force: true })));
}
