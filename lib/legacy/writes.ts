import { createOlderShape, deleteOlderShape, olderShapeFields, olderShapeJson, seriesAt } from "@/lib/series";
import { ensureUser } from "@/lib/auth/permissions";
import { pk, validatedFields } from "@/lib/http/fields";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";
import { existing } from "@/lib/domain/refs";

/**
 * Legacy writes of time series (legacy.md §4.3). Station writes are the current interface's
 * handlers themselves (lib/stations/api.ts).
 */

/** The older shape with `gentity` required and naming an existing station. */
function legacySeriesFields() {
  return { ...olderShapeFields(), gentity: pk(existing("station"), { required: true }) };
}

/** POST /api/Timeseries/: anonymous → 401, then the body (400), then the station (404) and the permission (403). */
export async function createTimeseries(ctx: RouteContext): Promise<Response> {
  ensureUser(ctx.auth.user);
  const v = await validatedFields(await ctx.input(), legacySeriesFields(), "create");
  const id = await createOlderShape(ctx.auth.user, v.gentity!, {
    group: { name: v.name, hidden: v.hidden, precision: v.precision!, remarks: v.remarks, variableId: v.variable!, unitId: v.unit_of_measurement! },
    timeStep: v.time_step,
  });
  return json(olderShapeJson(await seriesAt({ seriesId: id })), 201);
}

/** DELETE /api/Timeseries/<id>/: as the older shape's delete (api.md §7.1). */
export async function deleteTimeseries(ctx: RouteContext): Promise<Response> {
  await deleteOlderShape(ctx.auth.user, { seriesId: ctx.params.id });
  return noContent();
}
