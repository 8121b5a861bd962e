// The face of lib/frontend: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { canEditStation } from "./page-data";
export { groupPageData, initialChart, lonLat, pathId, seriesLabel, stationPageData, stationWithOwner, timeStepLabel } from "./pages";
export { PATH_HEADER, refusalCardHtml, refusalText, registerRefusalPages } from "./refusals";
export { searchParamsOf, siteSearch } from "./station-search";
