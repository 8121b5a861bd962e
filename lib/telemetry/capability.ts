import { settings } from "@/lib/config";
import { telemetryRoutes } from "@/lib/telemetry/api";
import { alertJob, fetchJob, healthJob, tickJob, upkeep } from "@/lib/telemetry/jobs";
import { ALERT_KIND, FETCH_KIND, HEALTH_KIND, TICK_KIND } from "@/lib/telemetry/keys";

/** Telemetry: what lib/capabilities registers of it. */
export const capability = {
  name: "telemetry",
  apiRoutes: telemetryRoutes,
  jobKinds: [
    // Fetches wait on vendors: ENHYDRIS_TELEMETRY_CONCURRENCY of them run at once, in a pool of their own.
    { kind: FETCH_KIND, handler: fetchJob, pool: "telemetry", poolSlots: () => settings().telemetryConcurrency },
    // The schedule's tick and the health check are never held up by fetches; the alerts are e-mail.
    { kind: TICK_KIND, handler: tickJob, pool: "upkeep" },
    { kind: HEALTH_KIND, handler: healthJob, pool: "upkeep" },
    { kind: ALERT_KIND, handler: alertJob, pool: "mail" },
  ],
  upkeep,
};
