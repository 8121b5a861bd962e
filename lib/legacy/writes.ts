import { orNotFound } from "@/lib/api/common";
import { olderShapeFields } from "@/lib/api/series-fields";
import { createGroupWithSeries, deleteSeriesAndEmptyGroup } from "@/lib/api/series-writes";
import { requireEditor, requireUser } from "@/lib/auth/permissions";
import { db } from "@/lib/db";
import { ErrorCollector } from "@/lib/http/errors";
import { pk, validateFields } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/http/router";
import { isDatabaseId } from "@/lib/legacy/ids";
import { existing } from "@/lib/services/refs";
import { stationAccess } from "@/lib/services/stations";

/**
 * Legacy writes of time series (legacy.md §4.3). Station writes are the current interface's
 * handlers themselves (lib/api/stations.ts).
 */

/** The older shape with `gentity` required and naming an existing station. */
function legacySeriesFields() {
  return { ...olderShapeFields(), gentity: pk(existing("station"), { required: true }) };
}

/** POST /api/Timeseries/: anonymous → 401, then the body (400), then the permission (403). */
export async function createTimeseries(ctx: RouteContext): Promise<Response> {
  requireUser(ctx);
  const errors = new ErrorCollector();
  const v = await validateFields(await ctx.input(), legacySeriesFields(), "create", errors);
  errors.throwIfAny();
  const station = orNotFound(await stationAccess(v.gentity!));
  requireEditor(ctx, station);
  const body = await createGroupWithSeries(station.id, {
    group: { name: v.name, hidden: v.hidden, precision: v.precision!, remarks: v.remarks, variableId: v.variable!, unitId: v.unit_of_measurement! },
    timeStep: v.time_step,
  });
  return json(body, 201);
}

/** DELETE /api/Timeseries/<id>/: as the older shape's delete (api.md §7.1). */
export async function deleteTimeseries(ctx: RouteContext): Promise<Response> {
  const id = ctx.params.id;
  const series = orNotFound(isDatabaseId(id) ? await db().prisma.timeseries.findUnique({ where: { id }, include: { group: true } }) : null);
  const station = orNotFound(await stationAccess(series.group.stationId));
  requireEditor(ctx, station);
  await deleteSeriesAndEmptyGroup(series.id, series.groupId);
  return noContent();
}
