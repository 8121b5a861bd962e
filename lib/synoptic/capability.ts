import { deleteExpiredAlarmEmails } from "@/lib/synoptic/alarm-email-cap";
import { evaluateJob, SEND_KIND, sendWarning } from "@/lib/synoptic/alarms";
import { synopticRoutes } from "@/lib/synoptic/api";
import { EVALUATE_KIND, synopticWrittenStatements } from "@/lib/synoptic/trigger";
import type { JobKind, Reactions } from "@/lib/jobs/registry";

/** Synoptic groups and their alarms: what lib/capabilities registers of them. */
export const capability = {
  name: "synoptic",
  apiRoutes: synopticRoutes,
  // Alarms are evaluated and their e-mails sent in pools of their own: process runs and
  // replication never hold them up.
  jobKinds: [
    { kind: EVALUATE_KIND, handler: evaluateJob, pool: "alarms" } satisfies JobKind,
    { kind: SEND_KIND, handler: sendWarning, pool: "mail" } satisfies JobKind,
  ],
  // A write of a series that a synoptic group shows queues the evaluation of its alarms (synoptic.md §3).
  reactions: { "series-written": (change, dialect) => synopticWrittenStatements(change.seriesId, dialect) } satisfies Reactions,
  // The per-recipient hourly cap counts the e-mails of the last hour only.
  upkeep: [{ name: "alarm_email_sent", run: deleteExpiredAlarmEmails }],
};
