import { readableSeries, readRange, readUpload, readZone, recordLinesStream, uploadRecords, validators } from "@/lib/series";
import { ensureUser } from "@/lib/auth/permissions";
import { withReadSnapshot } from "@/lib/db";
import { MAX_INSTANT, MIN_INSTANT } from "@/lib/formats/date-param";
import { matchesIfNoneMatch, notModified, validatorHeaders } from "@/lib/http/conditional";
import { integer, MSG } from "@/lib/http/fields";
import type { RouteContext } from "@/lib/routing/router";
import { ErrorCollector, ValidationFailed } from "@/lib/domain/errors";

/** `/api/tsdata/` (legacy.md §5): the records as text, and the legacy append. */
const TEXT = "text/plain; charset=utf-8";

/**
 * GET tsdata/<id>/: record lines in the display zone (or `timezone`), with `start_date`/`end_date`
 * (extension); the series and its records in one read snapshot, as data/.
 */
export function getTsdata(ctx: RouteContext): Promise<Response> {
  return withReadSnapshot(() => tsdataResponse(ctx));
}

async function tsdataResponse(ctx: RouteContext): Promise<Response> {
  const s = await readableSeries(ctx.auth.user, { seriesId: ctx.params.id });
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

/** Always an append; the body is the number of records added. */
async function append(ctx: RouteContext, seriesId: number): Promise<Response> {
  const outcome = await uploadRecords(ctx.auth.user, { seriesId }, async (s) => readUpload(await ctx.input(), s, { legacy: true }));
  const stored = "stored" in outcome ? outcome.stored : 0;
  return new Response(String(stored), { headers: { "Content-Type": TEXT } });
}

/** PUT/POST tsdata/<id>/ */
export async function putTsdata(ctx: RouteContext): Promise<Response> {
  return append(ctx, ctx.params.id);
}

/** PUT/POST tsdata/ with `timeseries_id`: anonymous → 401 first, then the field (400), the series (404), permission (403). */
export async function putTsdataById(ctx: RouteContext): Promise<Response> {
  ensureUser(ctx.auth.user);
  const input = await ctx.input();
  if (!input.has("timeseries_id")) throw ValidationFailed.field("timeseries_id", MSG.required);
  const parsed = integer().parse(input.get("timeseries_id"));
  if (!parsed.ok) throw ValidationFailed.field("timeseries_id", parsed.errors[0]);
  return append(ctx, parsed.value!);
}
