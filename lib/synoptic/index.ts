// The face of lib/synoptic: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { evaluateSynopticGroup, resendWarning, synopticWarnings, type WarningJson } from "./alarms";
export { SLUG, type SynopticGroupValues, type SynopticSeriesDefinition, type SynopticStationDefinition } from "./config";
export { readSynopticGroup, synopticGroupFields } from "./fields";
export { canEditSynopticGroup, createSynopticGroup, deleteSynopticGroup, editableSynopticGroups, findSynopticGroup, synopticGroupContents, type SynopticGroupJson, synopticGroupJson, type SynopticGroupRow, updateSynopticGroup } from "./groups";
export { latestJson, type LatestStationJson, type LatestStatus } from "./latest";
export { allSynopticGroups, type GroupChoice, type StationChoice, stationChoices, synopticPage, synopticStationPage } from "./pages";

export { capability } from "./capability";
