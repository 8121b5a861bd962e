import { isDatabaseId } from "@/lib/domain/refs";
import { findAuthUser } from "@/lib/auth/users";
import type { Actor } from "@/lib/auth/permissions";
import { settings } from "@/lib/config";
import { db, fromPrimary, Prisma } from "@/lib/db";
import { enqueueSql, type Job } from "@/lib/jobs/queue";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n";
import { recipientsByLocale, sendMail, serviceSender } from "@/lib/mail";
import { reserveAlarmEmails } from "@/lib/synoptic/alarm-email-cap";
import { records } from "@/lib/records";
import { NotFound } from "@/lib/domain/errors";
import { editableSynopticGroup, type SynopticGroupRow } from "@/lib/synoptic/groups";
import { readableStations, synopticEvaluationState, synopticStations, type SynopticEntry, type SynopticStation } from "@/lib/synoptic/latest";
import { rateOfChangeReach, stepSeconds } from "@/lib/processing";
import { rateOfChangeFailureAt } from "@/lib/synoptic/status";
import { durationText, warningMail, type AlarmKind, type WarningItem, type WarningMail } from "@/lib/synoptic/warnings";

/**
 * Early warnings (synoptic.md §3). A write of records into a series queues the evaluation of
 * every synoptic group that shows it (its reaction to a "series-written" change, lib/jobs/registry.ts, in the write's transaction).
 * The evaluation compares each series' value at its station's last common date with its limits
 * and rate-of-change thresholds, and keeps the alarms in force in `synoptic_alarm`: an alarm is
 * raised once, and raised again only after its series has been back within bounds. New alarms
 * are recorded as one warning (in the same transaction as the alarm state), whose e-mail is sent
 * by a job of its own: a failing SMTP server is retried by the queue and the warning stays.
 *
 * The values of private series reach the e-mails only when the synoptic group's creator may
 * read them (the addresses are the creator's choice).
 */
export const SEND_KIND = "synoptic.send";
/** Tries of a warning's e-mail: 5 s, 20 s, 80 s, … up to an hour apart, about six hours in all. */
export const SEND_ATTEMPTS = 10;

const sendKey = (warningId: number) => `synoptic-warning:${warningId}`;

/** What one series says about one kind of alarm: in alarm (with the warning's line), or within bounds. */
type Observation = { entry: number; kind: AlarmKind; since: number; item: WarningItem | null };

function item(station: SynopticStation, entry: SynopticEntry, kind: AlarmKind, extra: Partial<WarningItem>): WarningItem {
  return {
    station: station.name,
    variable: entry.subtitle ? `${entry.title} (${entry.subtitle})` : entry.title,
    kind,
    time: station.lastCommonDate!,
    value: entry.value!,
    precision: entry.precision,
    unit: entry.unit,
    fresh: true,
    ...extra,
  };
}

/**
 * The rate-of-change check (processing.md §3) of the series' record at the last common date.
 * The records read reach as far back as the check compares (100 × the largest delta_t, for the
 * thresholds summed since the last valid record), not only the largest delta_t as the reference
 * reads them, so that a jump across a gap in the data is caught as processing would catch it.
 */
async function rateOfChangeItem(station: SynopticStation, entry: SynopticEntry): Promise<WarningItem | null> {
  const config = entry.rateOfChange!;
  const at = station.lastCommonDate!;
  const timestamps: number[] = [];
  const values: number[] = [];
  for await (const chunk of records().read(entry.seriesId!, at - rateOfChangeReach({ ...config, remove_failing_values: false }), at)) {
    for (let i = 0; i < chunk.length; i++) {
      timestamps.push(chunk.timestamps[i]);
      values.push(chunk.values[i]);
    }
  }
  const failure = rateOfChangeFailureAt(Float64Array.from(timestamps), Float64Array.from(values), config, at);
  if (!failure) return null;
  const named = failure.implied ? undefined : config.thresholds.find((t) => stepSeconds(t.delta_t).seconds === failure.seconds
    && (config.symmetric || Math.sign(t.allowed_diff) === Math.sign(failure.allowed))); // asymmetric: a rise and a fall bound per delta_t
  return item(station, entry, "rate_of_change", {
    change: { diff: failure.diff, allowed: failure.allowed, over: named?.delta_t ?? durationText(failure.seconds), implied: failure.implied },
  });
}

/** The alarms each series is in or out of now; a series without a value at its last common date says nothing. */
async function observe(group: SynopticGroupRow, stations: SynopticStation[]): Promise<Observation[]> {
  // The creator matters only for private series.
  const anyPrivate = stations.some((s) => s.entries.some((e) => !e.publiclyAvailable));
  const creator = group.creatorId === null || !anyPrivate ? null : await findAuthUser(group.creatorId);
  const readable = await readableStations(creator, stations);
  const out: Observation[] = [];
  for (const station of stations) {
    for (const entry of station.entries) {
      const kinds: [AlarmKind, WarningItem | null][] = [];
      if (!readable(station, entry)) {
        kinds.push(["low", null], ["high", null], ["rate_of_change", null]);
      } else if (station.lastCommonDate !== null && entry.value !== null) {
        const v = entry.value;
        kinds.push(["low", entry.lowLimit !== null && v < entry.lowLimit ? item(station, entry, "low", { limit: entry.lowLimit }) : null]);
        kinds.push(["high", entry.highLimit !== null && v > entry.highLimit ? item(station, entry, "high", { limit: entry.highLimit }) : null]);
        kinds.push(["rate_of_change", entry.rateOfChange ? await rateOfChangeItem(station, entry) : null]);
      }
      for (const [kind, observed] of kinds) out.push({ entry: entry.id, kind, since: station.lastCommonDate ?? 0, item: observed });
    }
  }
  return out;
}

export interface EvaluationResult {
  raised: number;
  cleared: number;
  /** The warning recorded for the raised alarms. */
  warning: number | null;
}

const alarmKey = (entry: number, kind: string) => `${entry}:${kind}`;

/**
 * Evaluates a synoptic group now: raises the alarms newly in force (recording one warning for
 * them, its e-mail queued in the same transaction) and clears those back within bounds.
 * Idempotent: a second run over the same data changes nothing.
 */
export async function evaluateSynopticGroup(groupId: number): Promise<EvaluationResult> {
  const state = await synopticEvaluationState(groupId);
  if (!state) return { raised: 0, cleared: 0, warning: null };
  const { group } = state;
  const current = new Set(state.alarms);
  const through = await evaluatedThrough(group.id);
  // An alarm is raised only for a date later than the last one evaluated: a correction of past
  // records (or a deletion of the latest ones) e-mails nobody (corrections.md §2).
  const fresh = (o: Observation) => o.since > (through.get(o.entry) ?? -Infinity);
  const changes = (observations: Observation[]) => ({
    observations,
    raise: observations.filter((o) => o.item && fresh(o) && !current.has(alarmKey(o.entry, o.kind))),
    clear: observations.filter((o) => !o.item && current.has(alarmKey(o.entry, o.kind))),
  });
  // Most evaluations change nothing: they decide on the cached definition, and only a change is
  // decided again on everything read afresh (the warning's names and units are then current).
  let decided = changes(await observe(group, state.stations));
  if (!decided.raise.length && !decided.clear.length) {
    await markEvaluated(decided.observations, through);
    return { raised: 0, cleared: 0, warning: null };
  }
  decided = changes(await observe(group, await synopticStations(group.id)));
  const { observations, raise, clear } = decided;
  if (!raise.length && !clear.length) {
    await markEvaluated(observations, through);
    return { raised: 0, cleared: 0, warning: null };
  }

  const result = await db().write(async (tx) => {
    for (const sql of evaluatedSql(observations, through)) await tx.$executeRaw(sql);
    for (const o of clear) await tx.synopticAlarm.deleteMany({ where: { synopticTimeseriesGroupId: o.entry, kind: o.kind } });
    if (!raise.length) return { raised: 0, cleared: clear.length, warning: null };
    // Only the rows inserted now are new alarms (an evaluation that lost its job's lease may have run too).
    const inserted = await tx.$queryRaw<{ synoptic_timeseries_group_id: number; kind: string }[]>(Prisma.sql`
      INSERT INTO synoptic_alarm (synoptic_timeseries_group_id, kind, since)
      VALUES ${Prisma.join(raise.map((o) => Prisma.sql`(${o.entry}, ${o.kind}, ${o.since})`))}
      ON CONFLICT DO NOTHING RETURNING synoptic_timeseries_group_id, kind`);
    const raised = new Set(inserted.map((a) => alarmKey(Number(a.synoptic_timeseries_group_id), a.kind)));
    if (!raised.size) return { raised: 0, cleared: clear.length, warning: null };
    const items = observations
      .filter((o) => o.item && (raised.has(alarmKey(o.entry, o.kind)) || current.has(alarmKey(o.entry, o.kind))))
      .map((o) => ({ ...o.item!, fresh: raised.has(alarmKey(o.entry, o.kind)) }));
    const warning = await recordWarning(tx, group, items);
    return { raised: raised.size, cleared: clear.length, warning };
  });
  return result;
}

/** The last common date each series of the synoptic group was last evaluated at (entry id → UTC seconds). */
async function evaluatedThrough(groupId: number): Promise<Map<number, number>> {
  const rows = await fromPrimary(() => db().queryArrays<[number, number | null]>(Prisma.sql`SELECT e.id, e.evaluated_through FROM synoptic_timeseries_group e
    JOIN synoptic_group_station gs ON gs.id = e.synoptic_group_station_id WHERE gs.synoptic_group_id = ${groupId}`));
  return new Map(rows.filter((r) => r[1] !== null).map((r) => [Number(r[0]), Number(r[1])]));
}

/** The statements that move each series' evaluated date to the one observed now, where that is later. */
function evaluatedSql(observations: Observation[], through: Map<number, number>): Prisma.Sql[] {
  const later = new Map<number, number>();
  for (const o of observations) if (o.since > (through.get(o.entry) ?? -Infinity) && o.since !== 0) later.set(o.entry, o.since);
  return [...later].map(([entry, since]) => Prisma.sql`UPDATE synoptic_timeseries_group SET evaluated_through = ${since}
    WHERE id = ${entry} AND (evaluated_through IS NULL OR evaluated_through < ${since})`);
}

async function markEvaluated(observations: Observation[], through: Map<number, number>): Promise<void> {
  const statements = evaluatedSql(observations, through);
  if (statements.length) await db().write(async (tx) => { for (const sql of statements) await tx.$executeRaw(sql); });
}

function pageUrl(slug: string): string | null {
  const site = settings().siteUrl;
  return site ? `${site}/synoptic/${encodeURIComponent(slug)}/` : null;
}

/** Records a warning and queues its e-mail (nothing to send without addresses). */
async function recordWarning(tx: Prisma.TransactionClient, group: SynopticGroupRow, items: WarningItem[]): Promise<number> {
  const mail = warningMail({ siteName: settings().siteName, groupName: group.name, zone: group.displayTimezone, pageUrl: pageUrl(group.slug), items });
  const recipients = group.earlyWarningEmails;
  const { id } = await tx.synopticWarning.create({
    data: {
      synopticGroupId: group.id, createdAt: new Date(), recipients: JSON.stringify(recipients), subject: mail.subject, body: mail.body,
      items: JSON.stringify(items), status: recipients.length ? "pending" : "no_recipients",
    },
    select: { id: true },
  });
  if (recipients.length) await tx.$executeRaw(enqueueSql({ kind: SEND_KIND, key: sendKey(id), payload: { warning: id }, maxAttempts: SEND_ATTEMPTS }));
  return id;
}

/**
 * A recorded warning's e-mail in another language (public.md §3), for the recipients whose
 * account chose it: drawn again from its items. The warning keeps the English one.
 */
async function translatedWarning(warning: { synopticGroupId: number; items: string }, locale: Locale): Promise<WarningMail> {
  const group = await db().prisma.synopticGroup.findUniqueOrThrow({ where: { id: warning.synopticGroupId }, select: { name: true, slug: true, displayTimezone: true } });
  return warningMail({
    siteName: settings().siteName, groupName: group.name, zone: group.displayTimezone, pageUrl: pageUrl(group.slug), items: JSON.parse(warning.items) as WarningItem[], locale,
  });
}

/**
 * Sends a warning's e-mail, one per language of its recipients (their accounts', else English); a failure is recorded on the warning and retried by the queue. The
 * recipients that have had their hourly cap of warnings (lib/synoptic/alarm-email-cap.ts) are
 * left out and listed as `withheld`; when that is all of them, nothing is sent and the warning's
 * status says `withheld` (recorded, not sent; not retried).
 */
export async function sendWarning(job: Job): Promise<unknown> {
  const { warning: id } = job.payload as { warning: number };
  const warning = await db().prisma.synopticWarning.findUnique({ where: { id } });
  if (!warning || warning.status === "sent" || warning.status === "withheld") return { sent: false };
  const reservation = await reserveAlarmEmails(JSON.parse(warning.recipients) as string[]);
  const withheld = JSON.stringify(reservation.withheld);
  if (!reservation.allowed.length) {
    await db().write((tx) => tx.synopticWarning.update({ where: { id }, data: { status: "withheld", withheld, error: null } }));
    return { sent: false, withheld: reservation.withheld.length };
  }
  try {
    for (const [locale, to] of await recipientsByLocale(reservation.allowed)) {
      const mail = locale === DEFAULT_LOCALE ? warning : await translatedWarning(warning, locale);
      await sendMail({ to: to.join(", "), from: serviceSender(), subject: mail.subject, text: mail.body });
    }
  } catch (error) {
    await reservation.release();
    const last = job.attempts >= job.maxAttempts;
    await db().write((tx) => tx.synopticWarning.update({ where: { id }, data: { status: last ? "failed" : "pending", error: (error as Error).message.slice(0, 1000) } }));
    throw error;
  }
  await db().write((tx) => tx.synopticWarning.update({ where: { id }, data: { status: "sent", sentAt: new Date(), error: null, withheld } }));
  return { sent: true, withheld: reservation.withheld.length };
}

export async function evaluateJob(job: Job): Promise<unknown> {
  return evaluateSynopticGroup((job.payload as { group: number }).group);
}

/** A recorded warning as the group's editors see it (API and manage page), keys in output order. */
export interface WarningJson {
  id: number;
  created: string;
  status: "pending" | "sent" | "failed" | "no_recipients" | "withheld";
  sent: string | null;
  error: string | null;
  recipients: string[];
  /** The recipients it was not sent to: they had had their hourly cap of warnings (all of them when the status is withheld). */
  withheld: string[];
  subject: string;
  body: string;
  alarms: WarningItem[];
}

type WarningRecord = Prisma.SynopticWarningGetPayload<object>;

function warningJson(w: WarningRecord): WarningJson {
  return {
    id: w.id,
    created: w.createdAt.toISOString(),
    status: w.status as WarningJson["status"],
    sent: w.sentAt ? w.sentAt.toISOString() : null,
    error: w.error,
    recipients: JSON.parse(w.recipients) as string[],
    withheld: JSON.parse(w.withheld) as string[],
    subject: w.subject,
    body: w.body,
    alarms: JSON.parse(w.items) as WarningItem[],
  };
}

/** The warnings of a synoptic group, newest first, for its editors. */
export async function synopticWarnings(actor: Actor, groupId: number): Promise<{ count: number; page(offset: number, limit: number): Promise<WarningJson[]> }> {
  const group = await editableSynopticGroup(actor, groupId);
  const p = db().prisma.synopticWarning;
  return {
    count: await p.count({ where: { synopticGroupId: group.id } }),
    page: async (offset, limit) => (await p.findMany({ where: { synopticGroupId: group.id }, orderBy: { id: "desc" }, skip: offset, take: limit })).map(warningJson),
  };
}

/** Queues a failed warning's e-mail again (its editors, from the manage page). */
export async function resendWarning(actor: Actor, groupId: number, warningId: number): Promise<void> {
  const group = await editableSynopticGroup(actor, groupId);
  // The warning's id comes from a form: anything but a database id names nothing.
  const warning = isDatabaseId(warningId) ? await db().prisma.synopticWarning.findFirst({ where: { id: warningId, synopticGroupId: group.id } }) : null;
  if (!warning || warning.status !== "failed") throw new NotFound();
  await db().write(async (tx) => {
    await tx.synopticWarning.update({ where: { id: warning.id }, data: { status: "pending" } });
    await tx.$executeRaw(enqueueSql({ kind: SEND_KIND, key: sendKey(warning.id), payload: { warning: warning.id }, maxAttempts: SEND_ATTEMPTS }));
  });
}
