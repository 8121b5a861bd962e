/** The job kinds and keys of telemetry (lib/jobs): one fetch per telemetry at a time, one tick, one health check. */
import { enqueueSql } from "@/lib/jobs/queue";
import { MINUTE_MS } from "@/lib/telemetry/schedule";

export const FETCH_KIND = "telemetry.fetch";
export const TICK_KIND = "telemetry.tick";
export const HEALTH_KIND = "telemetry.health";
export const ALERT_KIND = "telemetry.alert";

export const TICK_KEY = "telemetry:tick";
export const HEALTH_KEY = "telemetry:health";

/** The key of a telemetry's fetches: the queue runs one job of a key at a time, across processes and instances. */
export const fetchKey = (telemetryId: number) => `telemetry:${telemetryId}`;

/** A fetch job's tries: a fetch that fails for the service's own reasons (the database away) is tried again soon. */
export const FETCH_ATTEMPTS = 3;

/** The milliseconds from `ms` to a second after the start of the next minute: when the next tick runs. */
export function untilNextTick(ms: number): number {
  return (Math.floor(ms / MINUTE_MS) + 1) * MINUTE_MS + 1000 - ms;
}

/** The statement that makes sure the scheduler's tick is queued (for the next minute, or earlier when it already is). */
export function tickSql(nowMs = Date.now()) {
  return enqueueSql({ kind: TICK_KIND, key: TICK_KEY, delayMs: untilNextTick(nowMs), maxAttempts: 1 });
}
