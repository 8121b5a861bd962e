import { requireEditor } from "@/lib/auth/permissions";
import { db, type Tx } from "@/lib/db";
import { settings } from "@/lib/config";
import { ErrorCollector, nonFieldError } from "@/lib/http/errors";
import { validateFields, type WriteMode } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/http/router";
import { pathStation } from "@/lib/api/common";
import { pathGroup, pathSeries } from "@/lib/api/station-children";
import { groupFields, olderShapeFields, seriesFields } from "@/lib/api/series-fields";
import { findGroup, groupJson } from "@/lib/services/groups";
import {
  createGroup, createSeries, deleteGroup, deleteSeries, seriesConflict, updateGroup, updateSeries, type GroupData, type SeriesData,
} from "@/lib/services/series-writes";
import { findStationSeries, olderShapeJson, seriesJson } from "@/lib/services/timeseries";
import { typeCode } from "@/lib/services/timeseries-types";

/** Writes of groups (api.md §5), time series (§6) and the older shape (§7.1). */

const GENTITY_EQUAL = "Must equal the station id in the URL.";
const GENTITY_FIXED = "It is not allowed to change the gentity of a time series group.";
const GROUP_EQUAL = "Must equal the time series group id in the URL.";
const GROUP_FIXED = "It is not allowed to change the timeseries_group of a time series.";

const writeMode = (ctx: RouteContext, create: boolean): WriteMode => (create ? "create" : ctx.method === "PUT" ? "replace" : "update");

/** Checks a parent id sent in the body against the one in the path. */
function checkParent(errors: ErrorCollector, field: string, sent: number | undefined, path: number, create: boolean, equal: string, fixed: string): void {
  if (sent !== undefined && sent !== path) errors.add(field, create ? equal : fixed);
}

function groupData(v: Awaited<ReturnType<typeof readGroup>>): Partial<GroupData> {
  return strip({ name: v.name, hidden: v.hidden, precision: v.precision ?? undefined, remarks: v.remarks, variableId: v.variable ?? undefined, unitId: v.unit_of_measurement ?? undefined });
}

function strip<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function readGroup(ctx: RouteContext, stationId: number, create: boolean) {
  const errors = new ErrorCollector();
  const v = await validateFields(await ctx.input(), groupFields(), writeMode(ctx, create), errors);
  checkParent(errors, "gentity", v.gentity, stationId, create, GENTITY_EQUAL, GENTITY_FIXED);
  errors.throwIfAny();
  return v;
}

/** A unique-index race lost between the check and the write ends as the check's 400. */
async function uniquely<T>(groupId: number, data: SeriesData, exceptId: number | undefined, write: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db().write(async (tx) => {
      const conflict = await seriesConflict(tx, groupId, data, exceptId);
      if (conflict) throw nonFieldError(conflict);
      return write(tx);
    });
  } catch (e) {
    if ((e as { code?: string }).code === "P2002") {
      const conflict = await db().write((tx) => seriesConflict(tx, groupId, data, exceptId));
      if (conflict) throw nonFieldError(conflict);
    }
    throw e;
  }
}

export async function createGroupHandler(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  requireEditor(ctx, station);
  const data = groupData(await readGroup(ctx, station.id, true)) as GroupData;
  const id = await db().write((tx) => createGroup(tx, station.id, data));
  return json(groupJson((await findGroup(station.id, id))!), 201);
}

export async function updateGroupHandler(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const group = await pathGroup(ctx);
  requireEditor(ctx, station);
  const data = groupData(await readGroup(ctx, station.id, false));
  await db().write((tx) => updateGroup(tx, group.id, data));
  return json(groupJson((await findGroup(station.id, group.id))!));
}

export async function deleteGroupHandler(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const group = await pathGroup(ctx);
  requireEditor(ctx, station);
  await db().write((tx) => deleteGroup(tx, group.id));
  return noContent();
}

async function readSeries(ctx: RouteContext, groupId: number, create: boolean) {
  const errors = new ErrorCollector();
  const v = await validateFields(await ctx.input(), seriesFields(), writeMode(ctx, create), errors);
  checkParent(errors, "timeseries_group", v.timeseries_group, groupId, create, GROUP_EQUAL, GROUP_FIXED);
  errors.throwIfAny();
  return strip({ type: v.type ? typeCode(v.type) : undefined, timeStep: v.time_step, name: v.name, publiclyAvailable: v.publicly_available });
}

export async function createSeriesHandler(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const group = await pathGroup(ctx);
  requireEditor(ctx, station);
  const data = (await readSeries(ctx, group.id, true)) as SeriesData;
  const id = await uniquely(group.id, data, undefined, (tx) => createSeries(tx, group.id, data));
  return json(seriesJson((await findStationSeries(station.id, id))!), 201);
}

export async function updateSeriesHandler(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const series = await pathSeries(ctx);
  requireEditor(ctx, station);
  const data = await readSeries(ctx, series.groupId, false);
  const merged: SeriesData = { type: series.type, timeStep: series.timeStep, name: series.name, publiclyAvailable: series.publiclyAvailable, ...data };
  await uniquely(series.groupId, merged, series.id, (tx) => updateSeries(tx, series.id, data));
  return json(seriesJson((await findStationSeries(station.id, series.id))!));
}

export async function deleteSeriesHandler(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const series = await pathSeries(ctx);
  requireEditor(ctx, station);
  await db().write((tx) => deleteSeries(tx, series.id));
  return noContent();
}

/** The older shape's body: group fields (gentity fixed to the path) and the series' time step. */
async function readOlderShape(ctx: RouteContext, stationId: number, create: boolean) {
  const errors = new ErrorCollector();
  const v = await validateFields(await ctx.input(), olderShapeFields(), writeMode(ctx, create), errors);
  checkParent(errors, "gentity", v.gentity, stationId, create, GENTITY_EQUAL, GENTITY_FIXED);
  errors.throwIfAny();
  return { group: groupData(v), timeStep: v.time_step };
}

/** POST stations/{sid}/timeseries/: a group and, in it, an Initial time series. */
export async function createOlderShape(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  requireEditor(ctx, station);
  return json(await createGroupWithSeries(station.id, await readOlderShape(ctx, station.id, true)), 201);
}

/** The create of the older shape, shared with the legacy POST /api/Timeseries/. */
export async function createGroupWithSeries(stationId: number, body: { group: Partial<GroupData>; timeStep?: string }) {
  const id = await db().write(async (tx) => {
    const groupId = await createGroup(tx, stationId, body.group as GroupData);
    return createSeries(tx, groupId, { type: typeCode("Initial"), timeStep: body.timeStep ?? "", name: "", publiclyAvailable: settings().defaultPubliclyAvailable });
  });
  const series = (await findStationSeries(stationId, id))!;
  return olderShapeJson(series, series.group);
}

export async function updateOlderShape(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const series = await pathSeries(ctx);
  requireEditor(ctx, station);
  const body = await readOlderShape(ctx, station.id, false);
  await db().write(async (tx) => {
    if (Object.keys(body.group).length) await updateGroup(tx, series.groupId, body.group);
    if (body.timeStep !== undefined) await updateSeries(tx, series.id, { timeStep: body.timeStep });
  });
  const updated = (await findStationSeries(station.id, series.id))!;
  return json(olderShapeJson(updated, updated.group));
}

/** DELETE of the older shape: the series, and its group when it was the last one (api.md §7.1). */
export async function deleteOlderShape(ctx: RouteContext): Promise<Response> {
  const station = await pathStation(ctx);
  const series = await pathSeries(ctx);
  requireEditor(ctx, station);
  await deleteSeriesAndEmptyGroup(series.id, series.groupId);
  return noContent();
}

export async function deleteSeriesAndEmptyGroup(seriesId: number, groupId: number): Promise<void> {
  await db().write(async (tx) => {
    await deleteSeries(tx, seriesId);
    if ((await tx.timeseries.count({ where: { groupId } })) === 0) await deleteGroup(tx, groupId);
  });
}
