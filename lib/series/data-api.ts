import { withReadSnapshot } from "@/lib/db";
import { matchesIfNoneMatch, notModified, validatorHeaders, type Validators } from "@/lib/http/conditional";
import { ApiError } from "@/lib/http/errors";
import { json, noContent } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";
import { bottomRequest, chartRequest, dataHeaders, dataRequest } from "@/lib/series/data-params";
import { readUpload } from "@/lib/series/upload-fields";
import { bottomBody, cachedChart, chartBody, dataBody } from "@/lib/series/data";
import { readableSeries, type SeriesContext, type SeriesPath } from "@/lib/series/context";
import { RecordsRefused, uploadRecords } from "@/lib/series/upload";
import { CORRECTION_ROUTES, deleteData, patchData } from "@/lib/series/corrections-api";

/** data/, bottom/ and chart/ of a time series (api.md §8), and its corrections (corrections.md §1), on both path forms (§7.2). */

function seriesPath(ctx: RouteContext): SeriesPath {
  const { sid, gid, tid } = ctx.params;
  return { seriesId: tid, stationId: sid, groupId: gid };
}

/** The series, if the caller may read its records (the private-data rule). */
function pathSeries(ctx: RouteContext): Promise<SeriesContext> {
  return readableSeries(ctx.auth.user, seriesPath(ctx));
}

/** 304 when If-None-Match matches (after every other check, formats.md §9.5). */
function conditional(ctx: RouteContext, v: Validators, respond: () => Promise<Response>): Promise<Response> | Response {
  return matchesIfNoneMatch(ctx.request, v.etag) ? notModified(v) : respond();
}

/**
 * GET data/: the series (its version for the ETag, its count for HTS) and its records in one
 * read snapshot (withReadSnapshot; the body's read holds it until the records are fetched).
 */
export function getData(ctx: RouteContext): Promise<Response> {
  return withReadSnapshot(async () => {
    const s = await pathSeries(ctx);
    const r = dataRequest(ctx.url.searchParams, s);
    return conditional(ctx, r.validators, async () =>
      new Response(await dataBody(s, r), { headers: { ...dataHeaders(s, r.fmt), ...validatorHeaders(r.validators) } }));
  });
}

/**
 * The number of lines the storage checks refused, on their 400 (extension): its body lists the
 * first 10 (formats.md §6.5).
 */
export const REFUSED_LINES_HEADER = "X-Enhydris-Refused-Lines";

export async function postData(ctx: RouteContext): Promise<Response> {
  let outcome;
  try {
    outcome = await uploadRecords(ctx.auth.user, seriesPath(ctx), async (s) => readUpload(await ctx.input(), s));
  } catch (error) {
    if (error instanceof RecordsRefused) throw new ApiError(400, error.fields, { [REFUSED_LINES_HEADER]: String(error.refused) });
    throw error;
  }
  return "dryRun" in outcome ? json(outcome.dryRun) : noContent();
}

/** GET bottom/: the series' one statement holds its version and last record: no snapshot needed. */
export async function getBottom(ctx: RouteContext): Promise<Response> {
  const s = await pathSeries(ctx);
  const r = bottomRequest(ctx.url.searchParams, s);
  return conditional(ctx, r.validators, async () =>
    new Response(bottomBody(s, r.output), { headers: { "Content-Type": "text/plain; charset=utf-8", ...validatorHeaders(r.validators) } }));
}

/**
 * GET chart/. The series is read first on its own (one statement): a 304, or a chart cached
 * under its version, is answered from it; otherwise the series and the aggregates are read in one
 * read snapshot, as data/.
 */
export async function getChart(ctx: RouteContext): Promise<Response> {
  return (await chartResponse(ctx, true)) ?? (await withReadSnapshot(() => chartResponse(ctx, false)))!;
}

/** The response; with `cachedOnly`, null unless it is a 304 or the chart is cached. */
async function chartResponse(ctx: RouteContext, cachedOnly: boolean): Promise<Response | null> {
  const s = await pathSeries(ctx);
  const r = chartRequest(ctx.url.searchParams, s);
  if (matchesIfNoneMatch(ctx.request, r.validators.etag)) return notModified(r.validators);
  const body = cachedOnly ? cachedChart(r.validators.etag) : await chartBody(s, r, r.validators.etag);
  if (body === undefined) return null;
  return new Response(body, { headers: { "Content-Type": "application/json", ...validatorHeaders(r.validators) } });
}

export const DATA_ROUTES = {
  "data/": { GET: getData, POST: postData, PATCH: patchData, DELETE: deleteData }, "bottom/": { GET: getBottom }, "chart/": { GET: getChart },
  ...CORRECTION_ROUTES,
} as const;
