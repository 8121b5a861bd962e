// The face of lib/manage: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { guarded, lookupObjectPageMetadata, manageMetadata, manageUser, queryProblem, refusalTitle, sourcePageMetadata, stationPageMetadata, superuserPageMetadata } from "./guard";
export { childForEditing, type Choice, type EditableStation, editableStations, failedProcesses, groupForEditing, lookupChoices, type OwnerChoice, ownerChoices, ownerDisplayName, processesForEditing, processForEditing, stationForEditing, stationGroupChoices } from "./home";
export { attachmentValues, eventValues, geomText, groupValues, lookupValues, seriesValues, stationValues, userValues } from "./values";
