/**
 * The allow list of outbound requests (ENHYDRIS_OUTBOUND_ALLOW, telemetry.md §3): host names,
 * addresses and CIDR ranges that may be reached although they are special (loopback,
 * link-local, …). Comma-separated; a host name with a leading dot (".example.org") also allows
 * its subdomains, as ENHYDRIS_ALLOWED_HOSTS does.
 */
import { embeddedIpv4, inRange, type IpBytes, type IpRange, parseIp, parseRange } from "@/lib/outbound/ip";

/** The name of the setting, for messages. */
export const OUTBOUND_ALLOW_SETTING = "ENHYDRIS_OUTBOUND_ALLOW";

export interface OutboundAllowList {
  /** Host names, lower case, without a trailing dot; ".example.org" covers subdomains. */
  readonly hosts: readonly string[];
  readonly ranges: readonly IpRange[];
}

/** Allows nothing special: the default. */
export const NOTHING_ALLOWED: OutboundAllowList = Object.freeze({ hosts: [], ranges: [] });

export type AllowListParse = { ok: true; allow: OutboundAllowList } | { ok: false; error: string };

const HOST_NAME = /^\.?[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Parses the setting's value. An empty value allows nothing special. A bad entry gives an
 * error that names it and says what is expected.
 */
export function parseOutboundAllow(text: string | undefined | null): AllowListParse {
  const hosts: string[] = [];
  const ranges: IpRange[] = [];
  for (const raw of String(text ?? "").split(",")) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    const bad = (why: string): AllowListParse => ({
      ok: false,
      error: `${OUTBOUND_ALLOW_SETTING}: "${raw.trim()}" ${why}`,
    });
    if (/^[a-z][a-z0-9+.-]*:\/\//.test(entry)) return bad("is a URL; write only its host name (such as logger.example.org)");
    if (entry.includes("/")) {
      const range = parseRange(entry);
      if (range === null) return bad("is not a CIDR range (such as 10.1.0.0/16 or fd00::/8)");
      ranges.push(range);
      continue;
    }
    const address = parseIp(entry);
    if (address !== null) {
      ranges.push({ bytes: address, prefix: address.length * 8 });
      continue;
    }
    if (/^[^:]+:\d+$/.test(entry)) return bad("has a port; write the host name or address alone");
    const name = entry.replace(/\.$/, "");
    // A name made only of digits and dots would be read as an IPv4 address by URL parsing.
    if (!HOST_NAME.test(name) || name.length > 253 || /^[\d.]+$/.test(name)) {
      return bad("is not a host name, an IP address or a CIDR range (such as logger.example.org, 127.0.0.1 or 10.0.0.0/8)");
    }
    hosts.push(name);
  }
  return { ok: true, allow: { hosts, ranges } };
}

/** True when the host name (as in a URL, lower case) is listed. */
export function allowsHost(allow: OutboundAllowList, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return allow.hosts.some((h) => (h.startsWith(".") ? name === h.slice(1) || name.endsWith(h) : name === h));
}

/** True when the address is in a listed address or range (an IPv4-mapped address counts as its IPv4 one). */
export function allowsAddress(allow: OutboundAllowList, address: IpBytes): boolean {
  const v4 = embeddedIpv4(address);
  return allow.ranges.some((r) => inRange(address, r) || (v4 !== null && inRange(v4, r)));
}
