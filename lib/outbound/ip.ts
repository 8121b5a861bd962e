/**
 * IP addresses as bytes (4 for IPv4, 16 for IPv6), CIDR ranges, and the special ranges that
 * outbound requests refuse (telemetry.md §3). Only node:net is used: this is the kernel.
 */
import { isIPv4, isIPv6 } from "node:net";

/** An address as 4 (IPv4) or 16 (IPv6) bytes. */
export type IpBytes = Uint8Array;

/** A CIDR range: the network's bytes (host bits zeroed) and the prefix length. */
export interface IpRange {
  readonly bytes: IpBytes;
  readonly prefix: number;
}

/**
 * The bytes of an IPv4 address in dotted decimal or of an IPv6 address (a zone index such as
 * `%eth0` is ignored, brackets are accepted), or null. Only canonical forms: `127.1` or
 * `0177.0.0.1` are not addresses here (URL parsing turns them into dotted decimal first).
 */
export function parseIp(text: string): IpBytes | null {
  let t = text.trim();
  if (t.startsWith("[") && t.endsWith("]")) t = t.slice(1, -1);
  if (isIPv4(t)) return Uint8Array.from(t.split(".").map(Number));
  const zone = t.indexOf("%");
  if (zone >= 0) t = t.slice(0, zone);
  if (!isIPv6(t)) return null;
  return parseIpv6(t);
}

function parseIpv6(t: string): IpBytes {
  const groups: number[] = [];
  const toGroups = (part: string): number[] => {
    if (part === "") return [];
    const out: number[] = [];
    for (const piece of part.split(":")) {
      if (piece.includes(".")) {
        const [a, b, c, d] = piece.split(".").map(Number);
        out.push((a << 8) | b, (c << 8) | d);
      } else {
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const gap = t.indexOf("::");
  if (gap < 0) {
    groups.push(...toGroups(t));
  } else {
    const head = toGroups(t.slice(0, gap));
    const tail = toGroups(t.slice(gap + 2));
    groups.push(...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail);
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** The text of an address: dotted decimal, or RFC 5952 IPv6 (as Node writes it). */
export function formatIp(bytes: IpBytes): string {
  if (bytes.length === 4) return Array.from(bytes).join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i] << 8) | bytes[i + 1]);
  // The longest run of two or more zero groups becomes "::".
  let bestAt = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestAt = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  if (bestAt < 0) return hex(groups);
  return `${hex(groups.slice(0, bestAt))}::${hex(groups.slice(bestAt + bestLength))}`;
}

/** A range `address/prefix` (host bits are cleared), or null. A bare address is a /32 or /128. */
export function parseRange(text: string): IpRange | null {
  const slash = text.indexOf("/");
  const bytes = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (bytes === null) return null;
  const bits = bytes.length * 8;
  let prefix = bits;
  if (slash >= 0) {
    const p = text.slice(slash + 1).trim();
    if (!/^\d{1,3}$/.test(p) || Number(p) > bits) return null;
    prefix = Number(p);
  }
  return { bytes: masked(bytes, prefix), prefix };
}

function masked(bytes: IpBytes, prefix: number): IpBytes {
  const out = Uint8Array.from(bytes);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    out[i] &= keep === 8 ? 0xff : (0xff << (8 - keep)) & 0xff;
  }
  return out;
}

/** True when the address lies in the range (both of the same family). */
export function inRange(bytes: IpBytes, range: IpRange): boolean {
  if (bytes.length !== range.bytes.length) return false;
  const m = masked(bytes, range.prefix);
  for (let i = 0; i < m.length; i++) if (m[i] !== range.bytes[i]) return false;
  return true;
}

/**
 * The IPv4 address an IPv6 address stands for, when it does: IPv4-mapped (::ffff:0:0/96),
 * NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) and 6to4 (2002::/16). A request to
 * such an address reaches (or is translated to) that IPv4 address, so it is judged as that one.
 */
export function embeddedIpv4(bytes: IpBytes): IpBytes | null {
  if (bytes.length !== 16) return null;
  if (inRange(bytes, V6_MAPPED) || inRange(bytes, V6_NAT64) || inRange(bytes, V6_NAT64_LOCAL)) return bytes.slice(12, 16);
  if (inRange(bytes, V6_6TO4)) return bytes.slice(2, 6);
  return null;
}

const range = (text: string): IpRange => parseRange(text)!;
const V6_MAPPED = range("::ffff:0:0/96");
const V6_NAT64 = range("64:ff9b::/96");
const V6_NAT64_LOCAL = range("64:ff9b:1::/48");
const V6_6TO4 = range("2002::/16");

/**
 * The ranges refused unless allowed (ENHYDRIS_OUTBOUND_ALLOW), with the words that name them
 * in messages. Private LAN ranges (10/8, 172.16/12, 192.168/16, fc00::/7) are not here: loggers
 * live there. The carrier-grade NAT range 100.64/10 is refused: it is no LAN range, and Alibaba
 * Cloud's metadata service (100.100.100.200) lives in it; a service that reaches loggers
 * through it (or through a VPN such as Tailscale that uses it) lists it in the allow list.
 */
const SPECIAL: readonly { range: IpRange; what: string }[] = [
  { range: range("169.254.169.254/32"), what: "a cloud metadata address" },
  { range: range("100.100.100.200/32"), what: "a cloud metadata address" },
  { range: range("fd00:ec2::254/128"), what: "a cloud metadata address" },
  { range: range("0.0.0.0/8"), what: "an unspecified (\"this network\") address" },
  { range: range("127.0.0.0/8"), what: "a loopback address" },
  { range: range("169.254.0.0/16"), what: "a link-local address" },
  { range: range("100.64.0.0/10"), what: "a carrier-grade NAT address (100.64.0.0/10)" },
  { range: range("192.0.0.0/24"), what: "an IETF protocol address (192.0.0.0/24)" },
  { range: range("192.0.2.0/24"), what: "a documentation address" },
  { range: range("198.51.100.0/24"), what: "a documentation address" },
  { range: range("203.0.113.0/24"), what: "a documentation address" },
  { range: range("198.18.0.0/15"), what: "a benchmarking address" },
  { range: range("224.0.0.0/4"), what: "a multicast address" },
  { range: range("240.0.0.0/4"), what: "a reserved address" },
  { range: range("::/128"), what: "the unspecified address" },
  { range: range("::1/128"), what: "a loopback address" },
  { range: range("::/96"), what: "a deprecated IPv4-compatible address" },
  { range: range("100::/64"), what: "a discard-only address" },
  { range: range("2001::/32"), what: "a Teredo tunnel address" },
  { range: range("2001:db8::/32"), what: "a documentation address" },
  { range: range("fe80::/10"), what: "a link-local address" },
  { range: range("fec0::/10"), what: "a deprecated site-local address" },
  { range: range("ff00::/8"), what: "a multicast address" },
];

/**
 * What makes an address one that outbound requests refuse ("a loopback address", …), or null
 * for an ordinary (public or private LAN) address. An IPv6 address that stands for an IPv4 one
 * (embeddedIpv4) is judged as that IPv4 address.
 */
export function specialAddress(bytes: IpBytes): string | null {
  const v4 = embeddedIpv4(bytes);
  if (v4 !== null) return specialAddress(v4);
  for (const s of SPECIAL) if (inRange(bytes, s.range)) return s.what;
  return null;
}
