import type { Route } from "@/lib/routing/router";
import { createStationHandler, deleteStationHandler, getStation, listStations, stationsCsv, stationsGeoJson, updateStationHandler } from "@/lib/stations/api";
import { attachmentWriters, createEventHandler, deleteEventHandler, updateEventHandler } from "@/lib/stations/attachment-api";
import { attachmentReaders, getEvent, listEvents } from "@/lib/stations/reads-api";

function attachmentRoutes(kind: "files" | "images"): Route[] {
  const r = attachmentReaders(kind);
  const w = attachmentWriters(kind);
  return [
    { path: `stations/:sid/${kind}/`, handlers: { GET: r.list, POST: w.create } },
    { path: `stations/:sid/${kind}/:id/`, handlers: { GET: r.detail, PUT: w.update, PATCH: w.update, DELETE: w.remove } },
    { path: `stations/:sid/${kind}/:id/content/`, handlers: { GET: r.content } },
  ];
}

/** Stations (api.md §4), their files, images (§9) and events (§10). */
export function stationRoutes(): Route[] {
  return [
    { path: "stations/", handlers: { GET: listStations, POST: createStationHandler } },
    { path: "stations/csv/", handlers: { GET: stationsCsv } },
    { path: "stations/geojson/", handlers: { GET: stationsGeoJson } },
    { path: "stations/:sid/", handlers: { GET: getStation, PUT: updateStationHandler, PATCH: updateStationHandler, DELETE: deleteStationHandler } },
    ...attachmentRoutes("files"),
    ...attachmentRoutes("images"),
    { path: "stations/:sid/events/", handlers: { GET: listEvents, POST: createEventHandler } },
    { path: "stations/:sid/events/:id/", handlers: { GET: getEvent, PUT: updateEventHandler, PATCH: updateEventHandler, DELETE: deleteEventHandler } },
  ];
}
