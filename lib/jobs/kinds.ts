import { PRUNE_KIND, upkeep } from "@/lib/jobs/maintenance";
import type { Job } from "@/lib/jobs/queue";
import { replicationRun } from "@/lib/replication/job";
import { REPLICATION_KIND } from "@/lib/replication/sources";
import { processRunHandler } from "@/lib/processing/run";
import { PROCESS_KIND } from "@/lib/processing/state";
import { evaluateJob, SEND_KIND, sendWarning } from "@/lib/synoptic/alarms";
import { EVALUATE_KIND } from "@/lib/synoptic/trigger";

/**
 * The registry of job kinds: each kind's module is imported here, explicitly, and the runner
 * takes the kinds listed. Processing, synoptic alarm and replication kinds are added here.
 */

export interface JobContext {
  /** Aborted when the runner shuts down or the job's lease is lost: stop, changing nothing more. */
  readonly signal: AbortSignal;
  /** The runner's lease_owner. */
  readonly owner: string;
  /** Reports progress (0…1, shown by the runner) and throws if the signal was aborted. */
  progress(fraction?: number): void;
}

/** Runs one job; returns its result (JSON-able, kept in the run history). Throwing fails the attempt. */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<unknown>;

export const jobHandlers: ReadonlyMap<string, JobHandler> = new Map<string, JobHandler>([
  [PRUNE_KIND, upkeep],
  [REPLICATION_KIND, replicationRun],
  [PROCESS_KIND, processRunHandler],
  [EVALUATE_KIND, evaluateJob],
  [SEND_KIND, sendWarning],
]);
