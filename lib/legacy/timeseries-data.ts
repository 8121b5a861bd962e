import { withReadSnapshot } from "@/lib/db";
import { RecordsChangedDuringRead } from "@/lib/records";
import { readableSeries, validators } from "@/lib/series";
import { parseBoolean } from "@/lib/config/boolean.mjs";
import { makeEtag, matchesIfNoneMatch, notModified, validatorHeaders } from "@/lib/http/conditional";
import { isCalendarDate, MSG, number, parseIntegerValue } from "@/lib/http/fields";
import type { RouteContext } from "@/lib/routing/router";
import { jsonOrJsonp } from "@/lib/legacy/jsonp";
import { callbackParam } from "@/lib/legacy/station-info";
import { LAST_CHOICES, normalizedSelection, type LastChoice } from "@/lib/legacy/stats";
import { ErrorCollector, ValidationFailed } from "@/lib/domain/errors";
import { cachedLegacyJson, legacyDataJson, type LegacyDataRequest } from "@/lib/legacy/timeseries-data-service";

/**
 * GET {site}/timeseries/data/ (legacy.md §7, formats.md §8): the statistics and down-sampled
 * points of an interval (lib/legacy/timeseries-data-service.ts), JSON or JSONP, with validators.
 */
export const TIME_MESSAGE = "Time has wrong format. Use one of these formats instead: hh:mm.";

/** The value of a parameter, or null when absent or empty (legacy.md §7.1). */
function param(params: URLSearchParams, name: string): string | null {
  const value = params.get(name);
  return value === null || value === "" ? null : value;
}

/** `object_id`: required integer. */
export function readObjectId(params: URLSearchParams): number {
  const raw = param(params, "object_id");
  if (raw === null) throw ValidationFailed.field("object_id", MSG.required);
  const id = parseIntegerValue(raw);
  if (id === undefined) throw ValidationFailed.field("object_id", MSG.integer);
  return id;
}

export interface LegacyDataParams extends LegacyDataRequest {
  callback: string | null;
}

/** Every other parameter, validated whether or not the selection uses it; all problems in one 400. */
export function readDataParams(params: URLSearchParams): LegacyDataParams {
  const errors = new ErrorCollector();
  const position = (name: string): number | null => {
    const raw = param(params, name);
    if (raw === null) return null;
    const n = parseIntegerValue(raw);
    if (n === undefined) errors.add(name, MSG.integer);
    else if (n < 0) errors.add(name, MSG.minValue(0));
    else return n;
    return null;
  };
  const flag = (name: string): boolean => {
    const raw = param(params, name);
    if (raw === null) return false;
    const b = parseBoolean(raw);
    if (b === undefined) errors.add(name, MSG.boolean);
    return b ?? false;
  };
  const startPos = position("start_pos");
  const endPos = position("end_pos");
  let last: LastChoice | null = null;
  const rawLast = param(params, "last");
  if (rawLast !== null) {
    if ((LAST_CHOICES as readonly string[]).includes(rawLast)) last = rawLast as LastChoice;
    else errors.add("last", MSG.choice(rawLast));
  }
  let date = param(params, "date");
  if (date !== null && !isCalendarDate(date)) {
    errors.add("date", MSG.date);
    date = null;
  }
  let time = param(params, "time");
  if (time !== null) {
    const m = /^(\d{2}):(\d{2})$/.exec(time);
    if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) {
      errors.add("time", TIME_MESSAGE);
      time = null;
    }
  }
  let startOffset = 0;
  const rawOffset = param(params, "start_offset");
  if (rawOffset !== null) {
    const parsed = number().parse(rawOffset);
    if (parsed.ok) startOffset = parsed.value!;
    else errors.add("start_offset", parsed.errors);
  }
  const exactDatetime = flag("exact_datetime");
  const vector = flag("vector");
  const callback = callbackParam(params, errors, "jsoncallback");
  errors.throwIfAny();
  return { selection: { startPos, endPos, last, date, time, startOffset, exactDatetime }, vector, callback };
}

/** How many times the statistics are read again when their records changed under a read (SQLite). */
const READS = 5;

/**
 * GET/HEAD {site}/timeseries/data/. The series is read first on its own (one statement): a 304,
 * or statistics cached under its version, are answered from it. Otherwise the series and the
 * statistics of its records are read in one read snapshot (withReadSnapshot). On SQLite a write
 * may come between the statements of a read: one that finds the records changed under it
 * (RecordsChangedDuringRead) is made again, from the series on.
 */
export async function timeseriesData(ctx: RouteContext): Promise<Response> {
  const answered = await timeseriesDataOnce(ctx, true);
  if (answered) return answered;
  for (let attempt = 1; ; attempt++) {
    try {
      return (await withReadSnapshot(() => timeseriesDataOnce(ctx, false)))!;
    } catch (error) {
      if (!(error instanceof RecordsChangedDuringRead) || attempt >= READS) throw error;
    }
  }
}

/** The response; with `cachedOnly`, null unless it is a 304 or the statistics are cached. */
async function timeseriesDataOnce(ctx: RouteContext, cachedOnly: boolean): Promise<Response | null> {
  const params = ctx.url.searchParams;
  const s = await readableSeries(ctx.auth.user, { seriesId: readObjectId(params) });
  const p = readDataParams(params);
  // What decides the result (formats.md §8.6): the series version, the precision, the display zone, the normalized parameters.
  const inputs = [...normalizedSelection(p.selection), p.vector, s.group.precision, s.station.displayTimezone];
  const v = validators(s, "legacy-timeseries-data", [...inputs, p.callback]);
  if (matchesIfNoneMatch(ctx.request, v.etag)) return notModified(v);
  const key = makeEtag(s.id, s.version, inputs);
  const json = cachedOnly ? cachedLegacyJson(key) : await legacyDataJson(s, p, key);
  if (json === undefined) return null;
  const out = jsonOrJsonp(json, p.callback);
  return new Response(out.body, { headers: { ...out.headers, ...validatorHeaders(v) } });
}
