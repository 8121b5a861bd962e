import { seriesRoutes } from "@/lib/series/routes";

/** Time series groups, time series and their data: what lib/capabilities registers of them. */
export const capability = { name: "series", apiRoutes: seriesRoutes };
