import type { Route, RouteContext } from "@/lib/routing/router";
import { listResponse } from "@/lib/http/handlers";
import { activityJson, countStationActivity, stationActivityPage } from "@/lib/activity/activity";

/** GET stations/{sid}/activity/ (management.md §3): the station's changes, newest first, for its editors. */
export async function listActivity(ctx: RouteContext): Promise<Response> {
  const { sid } = ctx.params;
  const count = await countStationActivity(ctx.auth.user, sid);
  return listResponse(ctx, count, async (offset, limit) => (await stationActivityPage(sid, offset, limit)).map(activityJson));
}

export function activityRoutes(): Route[] {
  return [{ path: "stations/:sid/activity/", handlers: { GET: listActivity } }];
}
