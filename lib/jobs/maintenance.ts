import { deleteEndedSiteSessions } from "@/lib/auth/session";
import { deleteExpiredFailures } from "@/lib/auth/throttle";
import type { JobHandler } from "@/lib/jobs/kinds";
import { deleteExpiredAlarmEmails } from "@/lib/services/alarm-email-cap";
import { enqueue, pruneJobs } from "@/lib/jobs/queue";
import { logError } from "@/lib/observability/log";

/**
 * The hourly upkeep of the tables that would otherwise grow for ever: the job run history (the
 * newest 100 per key, 90 days), site sessions past their lifetime, login failures older than
 * the throttle window and early-warning e-mails sent more than an hour ago (the per-recipient
 * cap). Its result counts the rows deleted per table.
 */
export const PRUNE_KIND = "jobs.prune";
export const PRUNE_KEY = "jobs:prune";
const EVERY = 3_600_000;

export const upkeep: JobHandler = async () => ({
  deleted: { job: await pruneJobs(), site_session: await deleteEndedSiteSessions(), login_failure: await deleteExpiredFailures(),
    alarm_email_sent: await deleteExpiredAlarmEmails() },
});

/**
 * Every runner that takes the prune kind enqueues it a minute after it starts and then hourly;
 * with several runners the enqueues coalesce.
 */
export function scheduleMaintenance(handlers: ReadonlyMap<string, JobHandler>): { stop(): void } {
  if (!handlers.has(PRUNE_KIND)) return { stop() {} };
  const schedule = () => {
    enqueue({ kind: PRUNE_KIND, key: PRUNE_KEY, delayMs: 60_000 }).catch((e) => logError("scheduling the hourly upkeep", e));
  };
  schedule();
  const timer = setInterval(schedule, EVERY);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
