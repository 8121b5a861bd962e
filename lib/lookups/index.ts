// The face of lib/lookups: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { LOOKUP_FIELDS, readLookupInput } from "./fields";
export { LOOKUP_FORMS, type LookupField, lookupOf } from "./forms";
export { descrJson, fileTypeJson, gareaJson, LOOKUP_NAMES, lookupForAdmin, type LookupName, lookupReaders, organizationJson, personJson, unitJson } from "./lookups";
export { createLookup, deleteLookup, insertLookup, lookupDeleteRefusal, updateLookup } from "./writes";

export { capability } from "./capability";
