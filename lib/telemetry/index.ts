// The face of lib/telemetry: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { CONNECTION_FIELDS, MAX_SENSORS, TELEMETRY_RULES, type SensorMapping, type TelemetryValues } from "./config";
export { discover, type Discovered } from "./discover";
export { describeType, type FieldMeta, type RemoteItem, type TelemetryTypeDescription } from "./driver";
export { driverContext, fetchTelemetry, type FetchSummary, type SensorOutcome } from "./fetch";
export { discoverFields, fetchFields, readDiscover, readFetchRequest, readTelemetry, telemetryFields } from "./fields";
export { checkFeeds } from "./health";
export { tick } from "./jobs";
export { DiscoveredSchema, FetchRunSchema, TelemetryLogSchema, TelemetrySchema, TelemetryTypeSchema } from "./openapi";
export { FETCH_KIND, fetchKey, TICK_KIND } from "./keys";
export { type FetchRunJson, lastFetch, type LogJson, requestFetch, telemetryLogs } from "./runs";
export { type FeedProblem, feedProblems, type SensorState, type TelemetryPage, telemetryPage, type TelemetrySummary, telemetrySummary } from "./pages";
export { nextDue, scheduleText } from "./schedule";
export { deleteTelemetry, getTelemetryJson, loadTelemetry, readableStation, readableTelemetry, saveTelemetry, type StoredTelemetry, type TelemetryJson, telemetryJson } from "./telemetries";
export { TELEMETRY_TYPES, telemetryType } from "./types";
export { type ConnectionStep, finishWizard, openWizard, readConnectionStep, readStationStep, readTypeStep, sealWizard, type SensorChoice, startWizard, wizardChoices, type WizardState, type WizardStep } from "./wizard";

export { capability } from "./capability";
