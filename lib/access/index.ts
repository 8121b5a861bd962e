// The face of lib/access: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { expireAccesses, remindAccessEnds } from "./expiry";
export { AccessRequestSchema, approveFields, denyFields, MAX_TEXT, readApproval, readDenial, readAccessRequest, requestFields } from "./fields";
export {
  ACCESS_STATUSES, accessOffer, type AccessOffer, type AccessRequestJson, type AccessStatus, approveAccessRequest, createAccessRequest, denyAccessRequest,
  pendingForEditor, type PendingRequest, withdrawAccessRequest,
} from "./requests";

export { capability } from "./capability";
