/**
 * From a vendor's readings to the records a fetch appends (telemetry.md §3), shared by all
 * types; pure functions.
 *
 * 1. Timestamps: a "utc" batch is already in UTC. A "local" batch is in `data_timezone`, read
 *    as the reference does (doc/dev/telemetry.rst, htimeseries): the readings are taken in the
 *    vendor's order; a local time that occurs twice (the clock set back) is the earlier instant,
 *    unless that instant is not after the reading before it (or the series' last record): then
 *    the clock has already been set back and it is the later instant. A local time that does
 *    not exist (the clock set forward) means the logger does not keep the zone's daylight
 *    saving time: an error naming the reading, as the reference's conversion raises.
 * 2. Readings of the same minute are reduced to the first (the reference's
 *    `_cleanup_measurements`), in time order.
 * 3. Readings at or before the series' last record are dropped, and so are those in the
 *    minute of the last record (that minute has its record).
 *
 * The result is sorted, without duplicates: a records-store batch.
 */
import { shownInstant } from "@/lib/domain/serialize";
import { daysFromCivil } from "@/lib/formats/civil";
import { formatUtcSeconds } from "@/lib/formats/timestamp";
import type { TimeZone } from "@/lib/formats/timezone";
import type { RecordBatch } from "@/lib/records/types";
import type { Reading, ReadingBatch } from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";

/** Naive seconds since 1970-01-01T00:00 of a wall-clock time (month 1–12). */
export function naiveSeconds(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  return daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

/** "YYYY-MM-DDTHH:MM:SS" of naive seconds. */
export function formatNaive(seconds: number): string {
  return formatUtcSeconds(seconds).slice(0, -1);
}

/** The wall-clock time (naive seconds) of an instant in a zone. */
export function localSecondsOf(epochSeconds: number, zone: TimeZone): number {
  return epochSeconds + zone.offsetSecondsAt(epochSeconds);
}

/**
 * A reading's value from text: a decimal number (sign, fraction and exponent allowed), null
 * for an empty text or NaN, undefined for anything else.
 */
export function parseReadingValue(text: string | number | null | undefined): number | null | undefined {
  if (text === null || text === undefined) return null;
  if (typeof text === "number") return Number.isFinite(text) ? (text === 0 ? 0 : text) : Number.isNaN(text) ? null : undefined;
  const t = text.trim();
  if (t === "" || /^nan$/i.test(t)) return null;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return undefined;
  const v = Number(t);
  if (!Number.isFinite(v)) return undefined;
  return v === 0 ? 0 : v;
}

/** Flags as words separated by single spaces. */
export function normalizeFlags(flags: string): string {
  const t = flags.trim();
  return /\s\s|[\t\n\r]/.test(t) ? t.split(/\s+/).join(" ") : t;
}

/**
 * The instants of a local time in a zone: [earlier, later] when it occurs twice, [t] when once,
 * [] when it does not exist.
 */
export function instantsOfLocal(local: number, zone: TimeZone): number[] {
  const earlier = zone.naiveToUtc(local);
  if (earlier === "nonexistent") return [];
  const segment = zone.segmentAt(earlier);
  if (Number.isFinite(segment.end)) {
    const next = zone.segmentAt(segment.end);
    const later = local - next.offset;
    if (later > earlier && later >= next.start && later < next.end) return [earlier, later];
  }
  return [earlier];
}

/** The UTC instants of a batch's readings, in the vendor's order (rule 1 above). */
export function instantsOf(batch: ReadingBatch, zone: TimeZone, lastStored: number | null): Float64Array {
  const n = batch.readings.length;
  const out = new Float64Array(n);
  if (batch.clock === "utc") {
    for (let i = 0; i < n; i++) out[i] = Math.floor(batch.readings[i].time);
    return out;
  }
  let previous = lastStored ?? -Infinity;
  for (let i = 0; i < n; i++) {
    const local = Math.floor(batch.readings[i].time);
    const candidates = instantsOfLocal(local, zone);
    if (candidates.length === 0) {
      throw new TelemetryError(
        `the reading at ${formatNaive(local).replace("T", " ")} does not exist in ${zone.name} (the clock was set forward then): ` +
          `the logger does not keep this zone's daylight saving time; set the time zone of the data to one with a fixed offset, such as Etc/GMT-2`,
      );
    }
    const t = candidates.length === 2 && previous >= candidates[0] ? candidates[1] : candidates[0];
    out[i] = t;
    previous = t;
  }
  return out;
}

/** What the conversion left out, for the fetch's log. */
export interface ConversionCounts {
  /** Readings in a minute that already had one (rule 2). */
  readonly sameMinute: number;
  /** Readings at or before the series' last record, or in its minute (rule 3). */
  readonly notAfterLast: number;
}

export interface Conversion extends ConversionCounts {
  readonly records: RecordBatch;
}

/**
 * The records to append from a batch: converted to UTC, one per minute, only after the series'
 * last record (`lastStored`, UTC epoch seconds, or null). Throws a TelemetryError for a local
 * time that does not exist in the zone.
 */
export function readingsToRecords(batch: ReadingBatch, zone: TimeZone, lastStored: number | null): Conversion {
  const readings: readonly Reading[] = batch.readings;
  const n = readings.length;
  const instants = instantsOf(batch, zone, lastStored);
  for (let i = 0; i < n; i++) {
    // Stored, such a reading would become the series' last record, and every later reading
    // would be dropped as not after it.
    if (shownInstant(instants[i]) === null) {
      throw new TelemetryError(`reading ${i + 1} of the answer is outside the years 1–9999: the vendor's clock, or the unit of its times, is wrong`);
    }
  }
  let order: number[] | null = null;
  for (let i = 1; i < n; i++) {
    if (instants[i] < instants[i - 1]) {
      // Stable: readings of the same instant keep the vendor's order, and the first one wins.
      order = Array.from({ length: n }, (_, k) => k).sort((a, b) => instants[a] - instants[b] || a - b);
      break;
    }
  }
  const lastMinute = lastStored === null ? -Infinity : Math.floor(lastStored / 60);
  const timestamps = new Float64Array(n);
  const values = new Float64Array(n);
  const flags: string[] = [];
  let count = 0;
  let sameMinute = 0;
  let notAfterLast = 0;
  let keptMinute = -Infinity;
  for (let k = 0; k < n; k++) {
    const i = order === null ? k : order[k];
    const t = instants[i];
    const minute = Math.floor(t / 60);
    if ((lastStored !== null && t <= lastStored) || minute === lastMinute) {
      notAfterLast++;
      continue;
    }
    if (minute === keptMinute) {
      sameMinute++;
      continue;
    }
    keptMinute = minute;
    const r = readings[i];
    timestamps[count] = t;
    values[count] = r.value === null || Number.isNaN(r.value) ? NaN : r.value === 0 ? 0 : r.value;
    flags.push(normalizeFlags(r.flags));
    count++;
  }
  return {
    records: { timestamps: timestamps.slice(0, count), values: values.slice(0, count), flags },
    sameMinute,
    notAfterLast,
  };
}

