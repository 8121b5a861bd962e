/**
 * Time zones (formats.md §3.1–3.3, §3.5).
 *
 * - `resolveTimeZone(name)` accepts every IANA zone or link name, case-insensitively, and
 *   keeps the name as the caller sent it (it is echoed in HTS headers).
 * - The fixed-offset zones are exactly the names listed in §3.3; their offsets are plain
 *   arithmetic. Every other zone reads its offsets from `Intl` once, in 64-day buckets of
 *   "segments" (spans without a transition), cached per zone for the life of the process.
 */
import { daysFromCivil } from "@/lib/formats/civil";
import { IANA_ZONE_NAMES } from "@/lib/formats/tz-names";

/** A span of instants [start, end) (epoch seconds) with one UTC offset (seconds). */
export interface OffsetSegment {
  readonly start: number;
  readonly end: number;
  readonly offset: number;
}

export interface TimeZone {
  /** The name exactly as the caller sent it (or as the station stores it). */
  readonly name: string;
  /**
   * The constant offset in minutes for the fixed-offset zones of formats.md §3.3 (and for the
   * offset-only zones of uploaded HTS headers); null for every other zone.
   */
  readonly fixedOffsetMinutes: number | null;
  /** UTC offset in minutes at an instant (fractional for historical local mean times). */
  offsetMinutesAt(epochSeconds: number): number;
  /** UTC offset in seconds at an instant. */
  offsetSecondsAt(epochSeconds: number): number;
  /** The segment (span with a single offset) containing an instant. */
  segmentAt(epochSeconds: number): OffsetSegment;
  /**
   * The instant of a naive wall-clock time (month 1–12). A repeated local time gives the
   * earlier instant; a skipped one gives "nonexistent".
   */
  localToUtc(y: number, mo: number, d: number, h: number, mi: number, s: number): number | "nonexistent";
  /** Same as `localToUtc` for a naive time given as seconds since 1970-01-01T00:00 local. */
  naiveToUtc(localSeconds: number): number | "nonexistent";
}

// ---------------------------------------------------------------------------------------
// Fixed-offset zones (§3.3)

const FIXED_NAMES = new Map<string, number>();
for (const n of [
  "UTC", "Etc/UTC", "UCT", "Etc/UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu",
  "GMT", "Etc/GMT", "GMT0", "Etc/GMT0", "GMT+0", "Etc/GMT+0", "GMT-0", "Etc/GMT-0",
  "Greenwich", "Etc/Greenwich",
]) {
  FIXED_NAMES.set(n.toLowerCase(), 0);
}
for (let n = 1; n <= 12; n++) FIXED_NAMES.set(`etc/gmt+${n}`, -60 * n);
for (let n = 1; n <= 14; n++) FIXED_NAMES.set(`etc/gmt-${n}`, 60 * n);

const ALL_TIME: OffsetSegment = { start: -Infinity, end: Infinity, offset: 0 };

class FixedZone implements TimeZone {
  readonly name: string;
  readonly fixedOffsetMinutes: number;
  private readonly offset: number;
  private readonly segment: OffsetSegment;

  constructor(name: string, offsetMinutes: number) {
    this.name = name;
    this.fixedOffsetMinutes = offsetMinutes;
    this.offset = offsetMinutes * 60;
    this.segment = offsetMinutes === 0 ? ALL_TIME : { start: -Infinity, end: Infinity, offset: this.offset };
  }

  offsetMinutesAt(): number {
    return this.fixedOffsetMinutes;
  }

  offsetSecondsAt(): number {
    return this.offset;
  }

  segmentAt(): OffsetSegment {
    return this.segment;
  }

  localToUtc(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
    return daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - this.offset;
  }

  naiveToUtc(localSeconds: number): number {
    return localSeconds - this.offset;
  }
}

/**
 * A zone with a constant offset that is not an IANA name, such as the `UTC+0300` of an
 * uploaded HTS header (formats.md §5.6). `name` is used in messages.
 */
export function fixedOffsetZone(offsetMinutes: number, name: string): TimeZone {
  return new FixedZone(name, offsetMinutes);
}

// ---------------------------------------------------------------------------------------
// Zones with transitions, from Intl

const STEP = 12 * 3600; // sampling step: no zone has a change reverted within 12 hours
const BUCKET = STEP * 128; // 64 days
/** Queries are clamped to about 1600–2400; offsets outside are taken as constant. */
const QMIN = -2112 * BUCKET; // 1599-12-…
const QMAX = 2455 * BUCKET; // 2400-…
const DAY = 86400;

interface Bucket {
  starts: number[];
  offsets: number[];
}

class IntlEngine {
  private readonly dtf: Intl.DateTimeFormat;
  private readonly buckets = new Map<number, Bucket>();
  private beforeSegment: OffsetSegment | null = null;
  private afterSegment: OffsetSegment | null = null;

  constructor(zoneName: string) {
    this.dtf = new Intl.DateTimeFormat("en-US", {
      timeZone: zoneName,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  }

  /** Offset in seconds at instant t (QMIN ≤ t ≤ QMAX), straight from Intl. */
  private rawOffset(t: number): number {
    // "MM/DD/YYYY, HH:MM:SS"
    const s = this.dtf.format(t * 1000);
    let i = 0;
    const nums = [0, 0, 0, 0, 0, 0];
    for (let k = 0; k < 6; k++) {
      while (i < s.length && (s.charCodeAt(i) < 48 || s.charCodeAt(i) > 57)) i++;
      let v = 0;
      while (i < s.length) {
        const c = s.charCodeAt(i) - 48;
        if (c < 0 || c > 9) break;
        v = v * 10 + c;
        i++;
      }
      nums[k] = v;
    }
    const [mo, d, y, h, mi, se] = nums;
    return daysFromCivil(y, mo, d) * DAY + h * 3600 + mi * 60 + se - t;
  }

  private bucket(b: number): Bucket {
    let bk = this.buckets.get(b);
    if (bk !== undefined) return bk;
    const b0 = b * BUCKET;
    const b1 = b0 + BUCKET;
    const starts = [b0];
    const offsets = [this.rawOffset(b0)];
    let prevT = b0;
    let prevO = offsets[0];
    for (let t = b0 + STEP; t <= b1; t += STEP) {
      const o = this.rawOffset(t);
      if (o !== prevO) this.findTransitions(prevT, prevO, t, o, b1, starts, offsets);
      prevT = t;
      prevO = o;
    }
    bk = { starts, offsets };
    this.buckets.set(b, bk);
    return bk;
  }

  /** Transitions in (a, z] where offset(a) = oa ≠ oz = offset(z); those at ≥ limit are dropped. */
  private findTransitions(
    a: number, oa: number, z: number, oz: number, limit: number, starts: number[], offsets: number[],
  ): void {
    let lo = a;
    let hi = z;
    let ohi = oz;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const om = this.rawOffset(mid);
      if (om === oa) {
        lo = mid;
      } else {
        hi = mid;
        ohi = om;
      }
    }
    if (hi >= limit) return;
    starts.push(hi);
    offsets.push(ohi);
    if (ohi !== oz) this.findTransitions(hi, ohi, z, oz, limit, starts, offsets);
  }

  segmentAt(t: number): OffsetSegment {
    if (t < QMIN) {
      if (this.beforeSegment === null) {
        this.beforeSegment = { start: -Infinity, end: QMIN, offset: this.rawOffset(QMIN) };
      }
      return this.beforeSegment;
    }
    if (t >= QMAX) {
      if (this.afterSegment === null) {
        this.afterSegment = { start: QMAX, end: Infinity, offset: this.rawOffset(QMAX) };
      }
      return this.afterSegment;
    }
    const b = Math.floor(t / BUCKET);
    const bk = this.bucket(b);
    const starts = bk.starts;
    let i = starts.length - 1;
    while (i > 0 && starts[i] > t) i--;
    const end = i + 1 < starts.length ? starts[i + 1] : (b + 1) * BUCKET;
    return { start: starts[i], end, offset: bk.offsets[i] };
  }
}

const MAX_SEARCH = DAY; // |offset| < 1 day

class IntlZone implements TimeZone {
  readonly name: string;
  readonly fixedOffsetMinutes: null = null;
  private readonly engine: IntlEngine;
  private cached: OffsetSegment;

  constructor(name: string, engine: IntlEngine) {
    this.name = name;
    this.engine = engine;
    this.cached = { start: 0, end: 0, offset: 0 };
  }

  segmentAt(t: number): OffsetSegment {
    const c = this.cached;
    if (t >= c.start && t < c.end) return c;
    const seg = this.engine.segmentAt(t);
    this.cached = seg;
    return seg;
  }

  offsetSecondsAt(t: number): number {
    return this.segmentAt(t).offset;
  }

  offsetMinutesAt(t: number): number {
    return this.segmentAt(t).offset / 60;
  }

  localToUtc(y: number, mo: number, d: number, h: number, mi: number, s: number): number | "nonexistent" {
    return this.naiveToUtc(daysFromCivil(y, mo, d) * DAY + h * 3600 + mi * 60 + s);
  }

  naiveToUtc(local: number): number | "nonexistent" {
    // Every instant u with u + offset(u) = local lies in [local − 1 day, local + 1 day].
    const lo = local - MAX_SEARCH;
    const hi = local + MAX_SEARCH;
    const c = this.cached;
    if (c.start <= lo && hi < c.end) return local - c.offset;
    let best = Infinity;
    let t = lo;
    while (t <= hi) {
      const seg = this.engine.segmentAt(t);
      const u = local - seg.offset;
      if (u >= seg.start && u < seg.end && u < best) best = u;
      if (seg.start <= local && local < seg.end) this.cached = seg;
      t = seg.end;
    }
    return best === Infinity ? "nonexistent" : best;
  }
}

// ---------------------------------------------------------------------------------------
// Resolution

const CANONICAL = new Map<string, string>();
for (const n of IANA_ZONE_NAMES) CANONICAL.set(n.toLowerCase(), n);

const engines = new Map<string, IntlEngine | null>();
const zones = new Map<string, TimeZone | null>();
const MAX_CACHED_NAMES = 4096;

function engineFor(canonical: string): IntlEngine | null {
  let e = engines.get(canonical);
  if (e !== undefined) return e;
  try {
    e = new IntlEngine(canonical);
  } catch {
    e = null; // the runtime's ICU does not know this name
  }
  engines.set(canonical, e);
  return e;
}

/**
 * The zone of an IANA name or link (case-insensitive), or null for an unknown name. The
 * returned zone keeps `name` exactly as given.
 */
export function resolveTimeZone(name: string): TimeZone | null {
  const hit = zones.get(name);
  if (hit !== undefined) return hit;
  const lower = name.toLowerCase();
  const canonical = CANONICAL.get(lower);
  let zone: TimeZone | null = null;
  if (canonical !== undefined) {
    const fixed = FIXED_NAMES.get(lower);
    if (fixed !== undefined) {
      zone = new FixedZone(name, fixed);
    } else {
      const engine = engineFor(canonical);
      if (engine !== null) zone = new IntlZone(name, engine);
    }
  }
  if (zones.size >= MAX_CACHED_NAMES) zones.clear();
  zones.set(name, zone);
  return zone;
}

/** True when the zone's UTC offset never changes (formats.md §3.3). */
export function isFixedOffset(zone: TimeZone): boolean {
  return zone.fixedOffsetMinutes !== null;
}

/** "+0200", "-0500", "+0000" (formats.md §5.4). Throws for a zone without a fixed offset. */
export function fixedOffsetLabel(zone: TimeZone): string {
  const m = zone.fixedOffsetMinutes;
  if (m === null) throw new Error(`time zone ${zone.name} has no fixed UTC offset`);
  const a = Math.abs(m);
  const hh = Math.floor(a / 60);
  const mm = a % 60;
  return (m < 0 ? "-" : "+") + (hh < 10 ? "0" : "") + hh + (mm < 10 ? "0" : "") + mm;
}

/** `"Nowhere/Zone" is not a valid choice.` (formats.md §3.1) */
export function invalidTimeZoneMessage(name: string): string {
  return `"${name}" is not a valid choice.`;
}

/** The 400 message of formats.md §3.3 for an HTS request in a zone without a fixed offset. */
export function noFixedOffsetMessage(name: string): string {
  return `"${name}" has no fixed UTC offset; HTS output needs a zone such as "Etc/GMT-2".`;
}

/**
 * A station's display zone by name. The API accepts only names it knows (api.md §4.1); a name it
 * does not (written into the database directly, or by an older version) is read as UTC, so that
 * the station's data can still be read and written.
 */
export function stationZone(name: string): TimeZone {
  return resolveTimeZone(name) ?? resolveTimeZone("UTC")!;
}
