// The face of lib/series: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { displayZone, groupPrecision, loadSeriesContext, readableSeries, type SeriesContext, stationZone, writableSeries } from "./context";
export { chartBody, recordLinesStream } from "./data";
export { chartRequest, readRange, readZone, validators } from "./data-params";
export { groupFields, olderShapeFields, readGroupInput, readSeriesInput, seriesFields } from "./fields";
export { findGroup, groupJson, type GroupRow, groupUnitSymbol } from "./groups";
export { groupPaths } from "./routes";
export { findSeriesAt, olderShapeJson, seriesAt, seriesPage } from "./timeseries";
export { uploadRecords } from "./upload";
export type { CorrectionJson } from "./corrections";
export { groupVariableIn, workbenchView, type WorkbenchView } from "./workbench";
export { readUpload, uploadFields } from "./upload-fields";
export { deleteFields, editFields, revertFields, transformFields } from "./correction-fields";
export { createGroup, createOlderShape, createSeries, deleteGroup, deleteOlderShape, deleteSeries, type GroupData, insertGroup, insertSeries, type SeriesData, updateGroup, updateSeries } from "./writes";

export { capability } from "./capability";
