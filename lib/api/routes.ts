import { Router, type Route } from "@/lib/http/router";
import { apiRoot } from "@/lib/api/root";
import { lookupRoutes } from "@/lib/api/lookups";
import { getUser, login, logout, passwordChange, passwordReset, passwordResetConfirm, updateUser } from "@/lib/api/auth";
import { complete, openLink, showForm, submitForm } from "@/lib/api/reset-pages";
import { getStation, listStations } from "@/lib/api/stations";
import {
  attachmentReaders, getEvent, getGroup, getOlderShape, getSeries, listEvents, listGroups, listOlderShape, listSeries,
} from "@/lib/api/station-children";

/**
 * The routes of the current interface under {site}/api/ (api.md). Paths end in "/"; `:name`
 * segments are decimal ids.
 */
function groupRoutes(word: "timeseriesgroups" | "timeseriesgroup"): Route[] {
  const group = `stations/:sid/${word}/:gid/`;
  return [
    { path: `stations/:sid/${word}/`, handlers: { GET: listGroups } },
    { path: group, handlers: { GET: getGroup } },
    { path: `${group}timeseries/`, handlers: { GET: listSeries } },
    { path: `${group}timeseries/:tid/`, handlers: { GET: getSeries } },
  ];
}

function attachmentRoutes(kind: "files" | "images"): Route[] {
  const h = attachmentReaders(kind);
  return [
    { path: `stations/:sid/${kind}/`, handlers: { GET: h.list } },
    { path: `stations/:sid/${kind}/:id/`, handlers: { GET: h.detail } },
    { path: `stations/:sid/${kind}/:id/content/`, handlers: { GET: h.content } },
  ];
}

export function apiRoutes(): Route[] {
  return [
    { path: "", handlers: { GET: apiRoot } },
    { path: "stations/", handlers: { GET: listStations } },
    { path: "stations/:sid/", handlers: { GET: getStation } },
    ...groupRoutes("timeseriesgroups"),
    ...groupRoutes("timeseriesgroup"),
    { path: "stations/:sid/timeseries/", handlers: { GET: listOlderShape } },
    { path: "stations/:sid/timeseries/:tid/", handlers: { GET: getOlderShape } },
    ...attachmentRoutes("files"),
    ...attachmentRoutes("images"),
    { path: "stations/:sid/events/", handlers: { GET: listEvents } },
    { path: "stations/:sid/events/:id/", handlers: { GET: getEvent } },
    ...lookupRoutes(),
    { path: "auth/login/", handlers: { POST: login }, open: true },
    { path: "auth/logout/", handlers: { POST: logout } },
    { path: "auth/user/", handlers: { GET: getUser, PUT: updateUser, PATCH: updateUser } },
    { path: "auth/password/change/", handlers: { POST: passwordChange } },
    { path: "auth/password/reset/", handlers: { POST: passwordReset }, open: true },
    { path: "auth/password/reset/confirm/", handlers: { POST: passwordResetConfirm }, open: true },
    { path: "auth/password/reset/confirm/*uid/set-password/", handlers: { GET: showForm, POST: submitForm }, open: true, csrfExempt: true },
    { path: "auth/password/reset/confirm/*uid/*token/", handlers: { GET: openLink, POST: submitForm }, open: true, csrfExempt: true },
    { path: "auth/password/reset/complete/", handlers: { GET: complete }, open: true },
  ];
}

const KEY = Symbol.for("enhydris.apiRouter");
type Holder = { [KEY]?: Router };

export function apiRouter(): Router {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= new Router("/api/", apiRoutes()));
}
