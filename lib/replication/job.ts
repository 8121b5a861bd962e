import type { JobHandler } from "@/lib/jobs/registry";
import { logError } from "@/lib/observability/log";
import { replicate } from "@/lib/replication/run";
import { scheduleNext, sourceCredentials, storedSource, type RunPayload } from "@/lib/replication/sources";

/**
 * The job of one run of a configured source (key `replication:<id>`, or `replication:<id>:dry`):
 * its credentials and query are read when it starts; its report is the job's result, shown by
 * `runs/`. A real run schedules the source's next one when it starts; a dry run is not on the schedule.
 */
export const replicationRun: JobHandler = async (job, ctx) => {
  const id = Number(job.key.split(":")[1]);
  const source = await storedSource(id);
  if (!source) return { skipped: "the source was deleted" };
  if (!source.enabled) return { skipped: "the source is disabled" };
  const payload = (job.payload ?? {}) as RunPayload;
  const dryRun = payload.dryRun === true;
  if (!dryRun) await scheduleNext(source, false);
  try {
    return await replicate({
      sourceId: source.id,
      url: source.url,
      query: source.query,
      // A password or token encrypted with another ENHYDRIS_SECRET_KEY fails the run with a message saying so.
      credentials: sourceCredentials(source),
      prune: source.prune || payload.prune === true,
      dryRun,
      signal: ctx.signal,
      onProgress: (p) => ctx.progress(p.total ? (p.phase === "objects" ? 0.5 * (p.done / p.total) : 0.5 + 0.5 * (p.done / p.total)) : undefined),
    });
  } catch (error) {
    if (!dryRun) await scheduleNext(source, true).catch((e) => logError(`replication source ${id}: scheduling a retry`, e));
    throw error;
  }
};
