// The face of lib/legacy: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { timeseriesDataRoutes } from "./routes";

export { capability } from "./capability";
