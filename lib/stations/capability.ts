import { stationRoutes } from "@/lib/stations/routes";

/** Stations, their files, images and events: what lib/capabilities registers of them. */
export const capability = { name: "stations", apiRoutes: stationRoutes };
