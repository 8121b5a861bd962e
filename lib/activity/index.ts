// The face of lib/activity: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { ACTIVITY_ACTIONS, type ActivityAction, type ActivityItem, isActivityAction, recentActivity, stationActivityPage } from "./activity";

export { capability } from "./capability";
