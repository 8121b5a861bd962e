import { rm } from "node:fs/promises";
import { ensureStationCreator, type Actor } from "@/lib/auth/permissions";
import { notifyJobsQueued } from "@/lib/jobs/queue";
import { stationZoneChangedStatements } from "@/lib/processing/state";
import { db, type Tx } from "@/lib/db";
import { valuesOf, type Given } from "@/lib/services/given";
import { mediaPath } from "@/lib/services/media";
import { stationNorm } from "@/lib/services/norms";
import { writeExactFloats } from "@/lib/services/sql";
import { editableStation, type StationAccess } from "@/lib/services/stations";

/**
 * Writes of stations (api.md §4.3) for an actor: who may create, change and delete (api.md §15).
 * The values are parsed (lib/api/station-fields.ts); references to other objects are checked
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
  return insertStation(await valuesOf(given, undefined), creator.id);
}

/** Inserts a station without a permission check: for seeding (lib/demo.ts, scripts, tests). */
export async function insertStation(data: StationData, creatorId: number | null): Promise<number> {
  return db().write(async (tx) => {
    const gentity = await tx.gentity.create({ data: { kind: "station" } });
    await tx.station.create({
      data: { ...(columns(data) as StationColumns), id: gentity.id, creatorId, lastModified: new Date(), searchNorm: stationNorm(data) },
    });
    await replaceRelations(tx, gentity.id, data);
    await writeExactFloats(tx, "station", gentity.id, { lon: data.lon, lat: data.lat, altitude: data.altitude });
    return gentity.id;
  });
}

/** Changes the fields given; relations given are replaced whole. */
export async function updateStation(actor: Actor, id: number, given: Given<Partial<StationData>, StationAccess>): Promise<void> {
  const station = await editableStation(actor, id);
  const data = await valuesOf(given, station);
  const zoneChanged = await db().write(async (tx) => {
    const current = await tx.station.findUniqueOrThrow({ where: { id }, select: { name: true, code: true, remarks: true, displayTimezone: true } });
    const merged = { ...current, ...columns(data) };
    await tx.station.update({
      where: { id },
      data: { ...columns(data), lastModified: new Date(), searchNorm: stationNorm(merged) },
    });
    await replaceRelations(tx, id, data);
    await writeExactFloats(tx, "station", id, { lon: data.lon, lat: data.lat, altitude: data.altitude });
    // Aggregations work in the station's local time: another zone means other intervals.
    const changed = data.displayTimezone !== undefined && data.displayTimezone !== current.displayTimezone;
    if (changed) for (const sql of stationZoneChangedStatements(id)) await tx.$executeRaw(sql);
    return changed;
  });
  if (zoneChanged) notifyJobsQueued();
}

/** Deletes a station and everything under it: groups, series, records, events, files and their bytes. */
export async function deleteStation(actor: Actor, id: number): Promise<void> {
  await editableStation(actor, id);
  const stored = await db().write(async (tx) => {
    const [files, images] = await Promise.all([
      tx.gentityFile.findMany({ where: { stationId: id }, select: { storedName: true } }),
      tx.gentityImage.findMany({ where: { stationId: id }, select: { storedName: true } }),
    ]);
    await tx.gentity.delete({ where: { id } });
    return [...files, ...images].map((f) => f.storedName).filter(Boolean);
  });
  await Promise.all(stored.map((name) => rm(mediaPath(name), { force: true })));
}
