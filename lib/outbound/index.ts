/**
 * Outbound requests (telemetry.md §3): the kernel module that every request of the service to
 * another host goes through. It depends on nothing else of lib/: callers pass the allow list,
 * the time limits and the size limit in.
 */
export {
  allowsAddress,
  allowsHost,
  NOTHING_ALLOWED,
  OUTBOUND_ALLOW_SETTING,
  parseOutboundAllow,
  type AllowListParse,
  type OutboundAllowList,
} from "@/lib/outbound/allow";
export { formatIp, parseIp, parseRange, specialAddress } from "@/lib/outbound/ip";
export {
  formatBytes,
  openOutbound,
  OutboundError,
  outboundRequest,
  type OutboundErrorCode,
  type OutboundOptions,
  type OutboundRequest,
  type OutboundResponse,
  type OutboundStream,
} from "@/lib/outbound/request";
