import { activityRoutes } from "@/lib/activity/api";

/** The activity log's reads: what lib/capabilities registers of them. */
export const capability = { name: "activity", apiRoutes: activityRoutes };
