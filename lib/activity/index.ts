// The face of lib/activity: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { type ActivityItem, recentActivity, stationActivityPage } from "./activity";

export { capability } from "./capability";
