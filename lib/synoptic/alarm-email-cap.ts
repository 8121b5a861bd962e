import { settings } from "@/lib/config";
import { db } from "@/lib/db";

/**
 * The hourly cap of early-warning e-mails per recipient (ENHYDRIS_ALARM_EMAILS_PER_HOUR): a
 * synoptic group's addresses are typed by any user, so without it anyone could make the service
 * mail an address as often as a series they write crosses a limit. Each e-mail sent to an
 * address is a row of `alarm_email_sent`; an address with `cap` rows younger than an hour gets
 * no more until the oldest is an hour old. Warnings over the cap are recorded, not sent
 * (lib/synoptic/alarms.ts says so in their state).
 */
const HOUR_MS = 3_600_000;
/** Serializes the count-then-insert of concurrent senders on PostgreSQL (SQLite's writes take turns already). */
const CAP_LOCK = 0x616c_6172; // "alar"

export interface Reservation {
  /** The addresses that may be sent to now, as given. */
  allowed: string[];
  /** Those that have had their cap of e-mails in the last hour. */
  withheld: string[];
  /** Gives the reserved sends back (the e-mail did not go). */
  release(): Promise<void>;
}

/** Reserves one e-mail to each of `recipients` that is under its cap now (addresses compared in lower case). */
export async function reserveAlarmEmails(recipients: string[]): Promise<Reservation> {
  const cap = settings().alarmEmailsPerHour;
  if (cap === 0) return { allowed: recipients, withheld: [], release: async () => {} };
  const now = new Date();
  const since = new Date(now.getTime() - HOUR_MS);
  const { allowed, withheld, ids } = await db().write(async (tx) => {
    if (db().dialect === "postgres") await tx.$executeRaw`SELECT pg_advisory_xact_lock(${CAP_LOCK})`;
    const keys = [...new Set(recipients.map((r) => r.toLowerCase()))];
    const counts = await tx.alarmEmailSent.groupBy({ by: ["recipient"], where: { recipient: { in: keys }, sentAt: { gt: since } }, _count: { _all: true } });
    const sent = new Map(counts.map((c) => [c.recipient, c._count._all]));
    const result = { allowed: [] as string[], withheld: [] as string[], ids: [] as number[] };
    for (const address of recipients) {
      const key = address.toLowerCase();
      if ((sent.get(key) ?? 0) >= cap) {
        result.withheld.push(address);
        continue;
      }
      sent.set(key, (sent.get(key) ?? 0) + 1);
      result.allowed.push(address);
      result.ids.push((await tx.alarmEmailSent.create({ data: { recipient: key, sentAt: now }, select: { id: true } })).id);
    }
    return result;
  });
  return {
    allowed,
    withheld,
    release: async () => {
      if (ids.length) await db().write((tx) => tx.alarmEmailSent.deleteMany({ where: { id: { in: ids } } }));
    },
  };
}

/** The upkeep (lib/jobs/maintenance.ts): deletes the sends older than an hour, which no cap counts; returns how many. */
export async function deleteExpiredAlarmEmails(): Promise<number> {
  const { count } = await db().write((tx) => tx.alarmEmailSent.deleteMany({ where: { sentAt: { lte: new Date(Date.now() - HOUR_MS) } } }));
  return count;
}
