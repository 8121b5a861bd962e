import { listResponse } from "@/lib/http/handlers";
import { json } from "@/lib/http/respond";
import { isoSeconds } from "@/lib/domain/serialize";
import type { RouteContext } from "@/lib/routing/router";
import { editorsSeries, ensureEditorsRead, seriesOfPath, type SeriesPath } from "@/lib/series/context";
import { orNotFound } from "@/lib/domain/errors";
import { changedRecords, deleteRecords, editRecords, revertCorrection, transformData, type Corrected } from "@/lib/series/correct";
import { readAfter, readDelete, readEdit, readRevert, readTransform } from "@/lib/series/correction-fields";
import { correctionJson, correctionsPage, countCorrections, findCorrection } from "@/lib/series/corrections";

/**
 * The correction calls of a series (corrections.md §1), on both path forms (api.md §7.2):
 * DELETE and PATCH of data/, data/transform/, the history (corrections/) and revert. Every
 * writing call is for the station's editors; their dry runs answer what would change.
 */

function seriesPath(ctx: RouteContext): SeriesPath {
  const { sid, gid, tid } = ctx.params;
  return { seriesId: tid, stationId: sid, groupId: gid };
}

/** A dry run's answer: the records that would change, before and after (UTC timestamps). */
function preview(done: Corrected): Response {
  const changed = changedRecords(done.outcome);
  return json({ changed: changed.length, records: changed.map((r) => ({ timestamp: isoSeconds(r.timestamp), before: r.before, after: r.after })) });
}

/** DELETE data/?start_date=&end_date= (or all=true): 200 {"deleted":n,"correction":id}. */
export async function deleteData(ctx: RouteContext): Promise<Response> {
  const done = await deleteRecords(ctx.auth.user, seriesPath(ctx), async (s) => readDelete(ctx.url.searchParams, s));
  return json({ deleted: done.outcome.before.timestamps.length, correction: done.correction });
}

/** PATCH data/ with {"records":[…]}: 200 {"changed":n,"correction":id}. */
export async function patchData(ctx: RouteContext): Promise<Response> {
  let dryRun = false;
  const done = await editRecords(ctx.auth.user, seriesPath(ctx), async (s) => {
    const values = readEdit(await ctx.input(), s);
    dryRun = values.dryRun;
    return values;
  });
  return dryRun ? preview(done) : json({ changed: done.outcome.written.timestamps.length, correction: done.correction });
}

/** POST data/transform/: 200 {"changed":n,"correction":id}. */
export async function postTransform(ctx: RouteContext): Promise<Response> {
  let dryRun = false;
  const done = await transformData(ctx.auth.user, seriesPath(ctx), async (s) => {
    const values = readTransform(await ctx.input(), s);
    dryRun = values.dryRun;
    return values;
  });
  return dryRun ? preview(done) : json({ changed: done.outcome.written.timestamps.length, correction: done.correction });
}

/** GET corrections/: a page, newest first. */
export async function listCorrections(ctx: RouteContext): Promise<Response> {
  const s = await editorsSeries(ctx.auth.user, seriesPath(ctx));
  const after = readAfter(ctx.url.searchParams);
  const count = await countCorrections(s.id, after);
  return listResponse(ctx, count, async (offset, limit) => (await correctionsPage(s.id, offset, limit, after)).map(correctionJson));
}

/** GET corrections/{cid}/ */
export async function getCorrection(ctx: RouteContext): Promise<Response> {
  const s = await seriesOfPath(seriesPath(ctx));
  const c = orNotFound(await findCorrection(s.id, ctx.params.cid));
  ensureEditorsRead(ctx.auth.user, s);
  return json(correctionJson(c));
}

/** POST corrections/{cid}/revert/: 200 the new correction. */
export async function postRevert(ctx: RouteContext): Promise<Response> {
  let dryRun = false;
  const path = seriesPath(ctx);
  const done = await revertCorrection(ctx.auth.user, path, ctx.params.cid, async () => {
    const values = readRevert(await ctx.input());
    dryRun = values.dryRun;
    return values;
  });
  if (dryRun) return preview(done);
  return json(correctionJson((await findCorrection(path.seriesId, done.correction!))!));
}

export const CORRECTION_ROUTES = {
  "data/transform/": { POST: postTransform },
  "corrections/": { GET: listCorrections },
  "corrections/:cid/": { GET: getCorrection },
  "corrections/:cid/revert/": { POST: postRevert },
} as const;
