// The face of lib/replication: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { runFields, sourceFields } from "./api";
export { INTERVAL_UNITS, readSourceForm, sourceValues, withoutSecrets } from "./form";
export { normalizeSourceUrl, SourceError } from "./remote";
export { replicate, type RunProgress } from "./run";
export { commandLineSource, copiedStationCount, countSources, createSource, deleteSource, detachableStation, detachStation, getSource, queueRun, runJson, type RunJson, sealStoredCredentials, SOURCE_DISABLED, sourceRunHistory, sourcesPage, type SourceValues, storedSource, updateSource } from "./sources";

export { capability } from "./capability";
