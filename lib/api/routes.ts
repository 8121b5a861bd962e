import { Router, type Route } from "@/lib/routing/router";
import { apiRoot } from "@/lib/api/root";
import { lookupRoutes } from "@/lib/lookups/api";
import { getUser, login, logout, passwordChange, passwordReset, passwordResetConfirm, updateUser } from "@/lib/accounts/api";
import { complete, openLink, showForm, submitForm } from "@/lib/accounts/reset-pages";
import {
  createStationHandler, deleteStationHandler, getStation, listStations, stationsCsv, stationsGeoJson, updateStationHandler,
} from "@/lib/stations/api";
import {
  attachmentReaders, getEvent, getGroup, getOlderShape, getSeries, listEvents, listGroups, listOlderShape, listSeries,
} from "@/lib/series/children-api";
import {
  createGroupHandler, createOlderShapeHandler, createSeriesHandler, deleteGroupHandler, deleteOlderShapeHandler, deleteSeriesHandler,
  updateGroupHandler, updateOlderShapeHandler, updateSeriesHandler,
} from "@/lib/series/writes-api";
import { attachmentWriters, createEventHandler, deleteEventHandler, updateEventHandler } from "@/lib/stations/attachment-api";
import { DATA_ROUTES } from "@/lib/series/data-api";
import { listActivity } from "@/lib/activity/api";
import { processRoutes } from "@/lib/processing/api";
import { legacyRoutes } from "@/lib/legacy/routes";
import { apiDocs, apiSchema } from "@/lib/api/docs";
import { health } from "@/lib/api/health";
import { replicationRoutes } from "@/lib/replication/api";
import { synopticRoutes } from "@/lib/synoptic/api";

/** data/, bottom/ and chart/ under a time series path. */
function dataRoutes(series: string): Route[] {
  return Object.entries(DATA_ROUTES).map(([name, handlers]) => ({ path: `${series}${name}/`, handlers }));
}

/**
 * The routes of the current interface under {site}/api/ (api.md). Paths end in "/"; `:name`
 * segments are decimal ids, `*name` any text; the first match wins.
 */
function groupRoutes(word: "timeseriesgroups" | "timeseriesgroup"): Route[] {
  const group = `stations/:sid/${word}/:gid/`;
  return [
    { path: `stations/:sid/${word}/`, handlers: { GET: listGroups, POST: createGroupHandler } },
    { path: group, handlers: { GET: getGroup, PUT: updateGroupHandler, PATCH: updateGroupHandler, DELETE: deleteGroupHandler } },
    { path: `${group}timeseries/`, handlers: { GET: listSeries, POST: createSeriesHandler } },
    { path: `${group}timeseries/:tid/`, handlers: { GET: getSeries, PUT: updateSeriesHandler, PATCH: updateSeriesHandler, DELETE: deleteSeriesHandler } },
    ...dataRoutes(`${group}timeseries/:tid/`),
    ...processRoutes(group),
  ];
}

function attachmentRoutes(kind: "files" | "images"): Route[] {
  const r = attachmentReaders(kind);
  const w = attachmentWriters(kind);
  return [
    { path: `stations/:sid/${kind}/`, handlers: { GET: r.list, POST: w.create } },
    { path: `stations/:sid/${kind}/:id/`, handlers: { GET: r.detail, PUT: w.update, PATCH: w.update, DELETE: w.remove } },
    { path: `stations/:sid/${kind}/:id/content/`, handlers: { GET: r.content } },
  ];
}

export function apiRoutes(): Route[] {
  return [
    { path: "", handlers: { GET: apiRoot } },
    { path: "schema/", handlers: { GET: apiSchema } },
    { path: "docs/", handlers: { GET: apiDocs } },
    { path: "health/", handlers: { GET: health }, open: true },
    { path: "stations/", handlers: { GET: listStations, POST: createStationHandler } },
    { path: "stations/csv/", handlers: { GET: stationsCsv } },
    { path: "stations/geojson/", handlers: { GET: stationsGeoJson } },
    { path: "stations/:sid/", handlers: { GET: getStation, PUT: updateStationHandler, PATCH: updateStationHandler, DELETE: deleteStationHandler } },
    ...groupRoutes("timeseriesgroups"),
    ...groupRoutes("timeseriesgroup"),
    { path: "stations/:sid/timeseries/", handlers: { GET: listOlderShape, POST: createOlderShapeHandler } },
    { path: "stations/:sid/timeseries/:tid/", handlers: { GET: getOlderShape, PUT: updateOlderShapeHandler, PATCH: updateOlderShapeHandler, DELETE: deleteOlderShapeHandler } },
    ...dataRoutes("stations/:sid/timeseries/:tid/"),
    ...attachmentRoutes("files"),
    ...attachmentRoutes("images"),
    { path: "stations/:sid/events/", handlers: { GET: listEvents, POST: createEventHandler } },
    { path: "stations/:sid/events/:id/", handlers: { GET: getEvent, PUT: updateEventHandler, PATCH: updateEventHandler, DELETE: deleteEventHandler } },
    { path: "stations/:sid/activity/", handlers: { GET: listActivity } },
    ...lookupRoutes(),
    ...replicationRoutes(),
    ...synopticRoutes(),
    { path: "auth/login/", handlers: { POST: login }, open: true },
    { path: "auth/logout/", handlers: { POST: logout } },
    { path: "auth/user/", handlers: { GET: getUser, PUT: updateUser, PATCH: updateUser } },
    { path: "auth/password/change/", handlers: { POST: passwordChange } },
    { path: "auth/password/reset/", handlers: { POST: passwordReset }, open: true },
    { path: "auth/password/reset/confirm/", handlers: { POST: passwordResetConfirm }, open: true },
    { path: "auth/password/reset/confirm/*uid/set-password/", handlers: { GET: showForm, POST: submitForm }, open: true, csrfExempt: true },
    { path: "auth/password/reset/confirm/*uid/*token/", handlers: { GET: openLink, POST: submitForm }, open: true, csrfExempt: true },
    { path: "auth/password/reset/complete/", handlers: { GET: complete }, open: true },
    ...legacyRoutes(),
  ];
}

const KEY = Symbol.for("enhydris.apiRouter");
type Holder = { [KEY]?: Router };

export function apiRouter(): Router {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= new Router("/api/", apiRoutes()));
}
