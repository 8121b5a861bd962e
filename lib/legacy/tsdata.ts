import { orNotFound } from "@/lib/api/common";
import { requireDataReader, requireEditor, requireUser } from "@/lib/auth/permissions";
import { MAX_INSTANT, MIN_INSTANT } from "@/lib/formats/date-param";
import { matchesIfNoneMatch, notModified, validatorHeaders } from "@/lib/http/conditional";
import { ErrorCollector, fieldError } from "@/lib/http/errors";
import { integer, MSG } from "@/lib/http/fields";
import type { RouteContext } from "@/lib/http/router";
import { isDatabaseId } from "@/lib/legacy/ids";
import { readRange, readZone, recordLinesStream, validators } from "@/lib/services/data";
import { loadSeriesContext, type SeriesContext } from "@/lib/services/series-context";
import { uploadRecords } from "@/lib/services/upload";

/** `/api/tsdata/` (legacy.md §5): the records as text, and the legacy append. */
const TEXT = "text/plain; charset=utf-8";

async function series(id: number): Promise<SeriesContext> {
  return orNotFound(isDatabaseId(id) ? await loadSeriesContext(id) : null);
}

/** GET tsdata/<id>/: record lines in the display zone (or `timezone`), with `start_date`/`end_date` (extension). */
export async function getTsdata(ctx: RouteContext): Promise<Response> {
  const s = await series(ctx.params.id);
  requireDataReader(ctx, s.access, s.publiclyAvailable);
  const params = ctx.url.searchParams;
  const errors = new ErrorCollector();
  const zone = readZone(params.get("timezone"), s, errors);
  const { start, end } = readRange(params, s, errors);
  errors.throwIfAny();
  const v = validators(s, "tsdata", [zone.name, start, end]);
  if (matchesIfNoneMatch(ctx.request, v.etag)) return notModified(v);
  const from = start ?? MIN_INSTANT;
  const to = end ?? MAX_INSTANT;
  const body = recordLinesStream(s.id, from, to < from ? from - 1 : to, s.group.precision, zone);
  return new Response(body, { headers: { "Content-Type": TEXT, ...validatorHeaders(v) } });
}

async function append(ctx: RouteContext, s: SeriesContext): Promise<Response> {
  requireEditor(ctx, s.access);
  const outcome = await uploadRecords(s, await ctx.input(), { legacy: true });
  const stored = "stored" in outcome ? outcome.stored : 0;
  return new Response(String(stored), { headers: { "Content-Type": TEXT } });
}

/** PUT/POST tsdata/<id>/: always an append; the body is the number of records added. */
export async function putTsdata(ctx: RouteContext): Promise<Response> {
  return append(ctx, await series(ctx.params.id));
}

/** PUT/POST tsdata/ with `timeseries_id`: anonymous → 401 first, then the field (400), the series (404), permission (403). */
export async function putTsdataById(ctx: RouteContext): Promise<Response> {
  requireUser(ctx);
  const input = await ctx.input();
  if (!input.has("timeseries_id")) throw fieldError("timeseries_id", MSG.required);
  const parsed = integer().parse(input.get("timeseries_id"));
  if (!parsed.ok) throw fieldError("timeseries_id", parsed.errors[0]);
  return append(ctx, await series(parsed.value!));
}
