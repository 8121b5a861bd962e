import type { Route } from "@/lib/routing/router";
import { createStationHandler, deleteStationHandler, updateStationHandler } from "@/lib/stations";
import { LEGACY_MODEL_NAMES } from "@/lib/legacy/model-data";
import { modelDetail, modelList } from "@/lib/legacy/reads";
import { allStationInfo, listStationInfo, oneStationInfo } from "@/lib/legacy/station-info";
import { getTsdata, putTsdata, putTsdataById } from "@/lib/legacy/tsdata";
import { createTimeseries, deleteTimeseries } from "@/lib/legacy/writes";
import { timeseriesData } from "@/lib/legacy/timeseries-data";

/**
 * The legacy interface under {site}/api/ (legacy.md): model-named endpoints, tsdata and the
 * station information calls. HTTP Basic is accepted and 401s carry the Basic challenge; GET
 * responses set the csrftoken cookie. Appended after the current interface's routes.
 */
const legacy = { scheme: "legacy", setsCsrfCookie: true } as const;

export function legacyRoutes(): Route[] {
  const models: Route[] = LEGACY_MODEL_NAMES.flatMap((name): Route[] => {
    if (name === "Station") {
      return [
        { path: "Station/", handlers: { GET: modelList(name), POST: createStationHandler }, ...legacy },
        { path: "Station/:sid/", handlers: { GET: modelDetail(name, "sid"), PUT: updateStationHandler, PATCH: updateStationHandler, DELETE: deleteStationHandler }, ...legacy },
      ];
    }
    if (name === "Timeseries") {
      return [
        { path: "Timeseries/", handlers: { GET: modelList(name), POST: createTimeseries }, ...legacy },
        { path: "Timeseries/:id/", handlers: { GET: modelDetail(name), DELETE: deleteTimeseries }, ...legacy },
      ];
    }
    return [
      { path: `${name}/`, handlers: { GET: modelList(name) }, ...legacy },
      { path: `${name}/:id/`, handlers: { GET: modelDetail(name) }, ...legacy },
    ];
  });
  return [
    { path: "Station/info/", handlers: { GET: allStationInfo }, ...legacy },
    { path: "Station/info/list/", handlers: { POST: listStationInfo }, slashOptional: ["POST"], csrfExempt: true, ...legacy },
    { path: "Station/info/:id/", handlers: { GET: oneStationInfo }, ...legacy },
    { path: "tsdata/", handlers: { POST: putTsdataById, PUT: putTsdataById }, slashOptional: ["POST", "PUT"], ...legacy },
    { path: "tsdata/:id/", handlers: { GET: getTsdata, POST: putTsdata, PUT: putTsdata }, ...legacy },
    ...models,
  ];
}

/** The route of {site}/timeseries/data/ (its own router, outside /api/). */
export function timeseriesDataRoutes(): Route[] {
  return [{ path: "", handlers: { GET: timeseriesData }, ...legacy }];
}
