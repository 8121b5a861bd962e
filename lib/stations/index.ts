// The face of lib/stations: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { createStationHandler, deleteStationHandler, updateStationHandler } from "./api";
export { attachmentFields, eventFields, readAttachmentInput, readEventInput } from "./attachment-api";
export { type AttachmentValues, createAttachment, deleteAttachment, discard, type NewContent, sanitizeFileName, storeContent, updateAttachment } from "./attachment-writes";
export { attachmentJson, type AttachmentKind, type AttachmentRow, attachmentsPage, findAttachment, type ImageRow } from "./attachments";
export { contentsText, groupContents, stationContents } from "./contents";
export { createEvent, deleteEvent, type EventData, eventJson, type EventRow, eventsPage, findEvent, updateEvent } from "./events";
export { stationExportZip } from "./export";
export { DISPLAY_TIMEZONES, geomField, readStationInput, stationFields } from "./fields";
export { type Bbox } from "./list";
export { mediaPath } from "./media";
export { readStationQuery } from "./params";
export { stationQuery, stationSearch } from "./query";
export { unknownTypeTerms } from "./search-types";
export { allStationsJson, editableChild, editableStation, existingStation, LAST_UPDATE_SQL, OWNER_DISPLAY_SQL, stationAccess, type StationAccess, stationAccesses, type StationJson, stationJsonById } from "./stations";
export { createStation, deleteStation, insertStation, insertStationRow, type StationData, type StationOrigin, updateStation } from "./writes";

export { capability } from "./capability";
