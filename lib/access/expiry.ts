import { settings } from "@/lib/config";
import { db } from "@/lib/db";
import { named, recordActivity } from "@/lib/domain/activity-log";
import type { JobHandler, UpkeepTask } from "@/lib/jobs/registry";
import { queueAccessMails } from "@/lib/access/mail";
import { dateOf, endViewing, REMINDER_DAYS } from "@/lib/access/requests";

/**
 * The end of approved accesses (public.md §2), a task of the hourly upkeep (lib/jobs/maintenance.ts):
 * a week before `valid_until` the user is told that the access ends; once it has begun, the
 * access ends (the user is no longer a data viewer, unless one already was before the approval)
 * and the user is told. An approval with an end also queues a job for that instant
 * (`queueAccessEnd` in lib/access/requests.ts), so that the access ends when valid_until begins rather than at the next
 * hour's upkeep, which stays as the net for a job that could not run. Each request is moved on by a conditional update in its own
 * transaction, so that two runners at once tell nobody twice. At most BATCH of each per run: the
 * next hour takes the rest.
 */
const BATCH = 500;
const DAY_MS = 86_400_000;

const include = { user: { select: { username: true, email: true } }, station: { select: { name: true } } } as const;

function factsOf(r: { id: number; stationId: number; message: string; validUntil: Date | null; reason: string; user: { username: string; email: string }; station: { name: string } }) {
  return {
    requestId: r.id, stationId: r.stationId, stationName: r.station.name, username: r.user.username, email: r.user.email,
    message: r.message, validUntil: dateOf(r.validUntil), reason: r.reason,
  };
}

/** Sends the week's reminders due at `now`; returns how many. */
export async function remindAccessEnds(now = new Date()): Promise<number> {
  const site = settings().siteUrl;
  const due = await db().prisma.accessRequest.findMany({
    where: { status: "approved", remindedAt: null, validUntil: { gt: now, lte: new Date(now.getTime() + REMINDER_DAYS * DAY_MS) } },
    include, orderBy: { validUntil: "asc" }, take: BATCH,
  });
  let sent = 0;
  for (const r of due) {
    const done = await db().write(async (tx) => {
      const { count } = await tx.accessRequest.updateMany({ where: { id: r.id, status: "approved", remindedAt: null }, data: { remindedAt: now } });
      if (count) await queueAccessMails(tx, "reminder", factsOf(r), [r.user.email], site);
      return count > 0;
    });
    if (done) sent++;
  }
  return sent;
}

/** Ends the accesses whose valid_until has begun by `now`; returns how many. */
export async function expireAccesses(now = new Date()): Promise<number> {
  const site = settings().siteUrl;
  const due = await db().prisma.accessRequest.findMany({
    where: { status: "approved", validUntil: { lte: now } }, include, orderBy: { validUntil: "asc" }, take: BATCH,
  });
  let ended = 0;
  for (const r of due) {
    const done = await db().write(async (tx) => {
      const { count } = await tx.accessRequest.updateMany({ where: { id: r.id, status: "approved" }, data: { status: "expired" } });
      if (!count) return false;
      if (r.granted) await endViewing(tx, r.stationId, r.userId, now);
      await recordActivity(tx, null, {
        action: "expire", objectType: "access_request", objectId: r.id, stationId: r.stationId,
        summary: `Access of "${r.user.username}" to the data of station ${named(r.station.name, r.stationId)} ended on ${dateOf(r.validUntil)}`,
      });
      await queueAccessMails(tx, "expired", factsOf(r), [r.user.email], site);
      return true;
    });
    if (done) ended++;
  }
  return ended;
}

/** The job queued by an approval: ends every access due by now (the one it was queued for among them). */
export const endDueAccesses: JobHandler = async () => ({ ended: await expireAccesses(new Date()) });

/** The upkeep task: reminders, then the ends; its count is of the accesses ended. */
export const accessUpkeep: UpkeepTask = {
  name: "access_request",
  async run() {
    const now = new Date();
    await remindAccessEnds(now);
    return expireAccesses(now);
  },
};
