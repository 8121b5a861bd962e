// The face of lib/processing: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { type ProcessType, rateOfChangeErrors } from "./config";
export { describeProcess, describeProcesses } from "./describe";
export { allProcessFields, processBodySchema, readProcess, readRunRequest, runFields } from "./fields";
export { lineMessages, periodCount, type ProcessAddForm, processAddForms, processInput, processValues } from "./form";
export { AGGREGATION_METHODS } from "./numerics/aggregate";
export { type ChecksConfig, runChecks } from "./numerics/checks";
export { type RateOfChangeFailure, rateOfChangeFailures, rateOfChangeReach, type RateOfChangeThreshold, sortThresholds } from "./numerics/rate-of-change";
export { EMPTY } from "./numerics/series";
export { stepSeconds } from "./numerics/steps";
export { createProcess, deleteProcess, pathProcess, processesPage, processRuns, queueGroupRuns, requestRun, type RunJson, type SiteRun, siteRunJson, updateProcess } from "./processes";
export { processRunHandler, readRecords, type RunResult } from "./run";
export { ProcessSchema, RunSchema } from "./schemas";
export { processesFedBy, seriesOfGroups } from "./series";
export { PROCESS_COLUMNS, PROCESS_KIND, processFromRow, processKey, type ProcessRow } from "./state";
export { processesWriting, processesWritingGroup } from "./writers";

export { capability } from "./capability";
