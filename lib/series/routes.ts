import type { Route } from "@/lib/routing/router";
import { DATA_ROUTES } from "@/lib/series/data-api";
import { getGroup, getOlderShape, getSeries, listGroups, listOlderShape, listSeries } from "@/lib/series/reads-api";
import {
  createGroupHandler, createOlderShapeHandler, createSeriesHandler, deleteGroupHandler, deleteOlderShapeHandler, deleteSeriesHandler,
  updateGroupHandler, updateOlderShapeHandler, updateSeriesHandler,
} from "@/lib/series/writes-api";

/** The two words of a group's path (api.md §5: the singular is an alias). */
export const GROUP_WORDS = ["timeseriesgroups", "timeseriesgroup"] as const;

/** A group's path under /api/ for each word: `stations/:sid/<word>/:gid/`. */
export const groupPaths = (): string[] => GROUP_WORDS.map((word) => `stations/:sid/${word}/:gid/`);

/** data/, bottom/, chart/ and the corrections' paths under a time series path. */
function dataRoutes(series: string): Route[] {
  return Object.entries(DATA_ROUTES).map(([name, handlers]) => ({ path: `${series}${name}`, handlers }));
}

function groupRoutes(word: (typeof GROUP_WORDS)[number]): Route[] {
  const group = `stations/:sid/${word}/:gid/`;
  return [
    { path: `stations/:sid/${word}/`, handlers: { GET: listGroups, POST: createGroupHandler } },
    { path: group, handlers: { GET: getGroup, PUT: updateGroupHandler, PATCH: updateGroupHandler, DELETE: deleteGroupHandler } },
    { path: `${group}timeseries/`, handlers: { GET: listSeries, POST: createSeriesHandler } },
    { path: `${group}timeseries/:tid/`, handlers: { GET: getSeries, PUT: updateSeriesHandler, PATCH: updateSeriesHandler, DELETE: deleteSeriesHandler } },
    ...dataRoutes(`${group}timeseries/:tid/`),
  ];
}

/** Groups (api.md §5), time series (§6), the older shape (§7) and their data (§8). */
export function seriesRoutes(): Route[] {
  return [
    ...GROUP_WORDS.flatMap(groupRoutes),
    { path: "stations/:sid/timeseries/", handlers: { GET: listOlderShape, POST: createOlderShapeHandler } },
    { path: "stations/:sid/timeseries/:tid/", handlers: { GET: getOlderShape, PUT: updateOlderShapeHandler, PATCH: updateOlderShapeHandler, DELETE: deleteOlderShapeHandler } },
    ...dataRoutes("stations/:sid/timeseries/:tid/"),
  ];
}
