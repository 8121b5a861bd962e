/**
 * Access requests (public.md §2): a user asks to read a station's protected series; the
 * station's editors approve (the user becomes a data viewer until `valid_until`) or deny (with a
 * reason); the requester may withdraw. Services know nothing of HTTP: they take the actor, the
 * ids of the path and the parsed values (or a function that reads them once the request and the
 * permission have been checked, lib/domain/given.ts), and `site`, the root of links in e-mails.
 */
import { ensureUser, isDataReader, isEditor, type Actor, type StationAccess } from "@/lib/auth/permissions";
import { db, type Tx } from "@/lib/db";
import { named, recordActivity } from "@/lib/domain/activity-log";
import { NotFound, PermissionDenied, ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { isoMillis } from "@/lib/domain/serialize";
import { enqueueSql } from "@/lib/jobs/queue";
import { existingStation, stationAccess } from "@/lib/stations";
import { queueAccessMails, requestRecipients, type MailFacts } from "@/lib/access/mail";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n";

export const ACCESS_STATUSES = ["pending", "approved", "denied", "expired"] as const;
export type AccessStatus = (typeof ACCESS_STATUSES)[number];

export const ALREADY_PENDING = "You already have a pending access request for this station.";
export const ALREADY_READER = "You can already read the data of this station.";
export const NOTHING_PROTECTED = "This station has no protected data.";
export const NOT_PENDING = "This request has already been decided.";
export const NOT_AFTER_TODAY = "The access must end after today (UTC).";

/** Days before the end of an access when the user is reminded. */
export const REMINDER_DAYS = 7;
const DAY_MS = 86_400_000;

export interface AccessRequestJson {
  id: number;
  station: number;
  user: number;
  username: string;
  message: string;
  status: AccessStatus;
  created: string;
  decided: string | null;
  decided_by: number | null;
  /** YYYY-MM-DD: the first day without access (UTC); null: no end */
  valid_until: string | null;
  reason: string;
}

const INCLUDE = { user: { select: { username: true, email: true } }, station: { select: { name: true } } } as const;

interface Row {
  id: number; stationId: number; userId: number; message: string; status: string; created: Date; decided: Date | null;
  decidedById: number | null; validUntil: Date | null; reason: string; granted: boolean;
  user: { username: string; email: string }; station: { name: string };
}

/** A stored instant at 00:00 UTC as its date. */
export const dateOf = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

export function accessRequestJson(r: Row): AccessRequestJson {
  return {
    id: r.id, station: r.stationId, user: r.userId, username: r.user.username, message: r.message, status: r.status as AccessStatus,
    created: isoMillis(r.created)!, decided: isoMillis(r.decided), decided_by: r.decidedById, valid_until: dateOf(r.validUntil), reason: r.reason,
  };
}

function facts(r: Row): MailFacts {
  return {
    requestId: r.id, stationId: r.stationId, stationName: r.station.name, username: r.user.username, email: r.user.email,
    message: r.message, validUntil: dateOf(r.validUntil), reason: r.reason,
  };
}

const who = (r: Row) => `"${r.user.username}"`;
const stationNamed = (r: Row) => `station ${named(r.station.name, r.stationId)}`;

/**
 * The end of the user's reading of the station's protected data when it comes only from approvals
 * with an end date (the latest of their ends), or null: the user reads it for good (as an editor,
 * a data viewer made by hand or by an approval with no end) or not at all. Such a user may ask for
 * a new request (an extension, which the reminder e-mail suggests); its approval replaces them.
 */
export async function accessEndOf(user: Actor, station: StationAccess, now = new Date()): Promise<Date | null> {
  if (!user || !user.isActive || isEditor(user, station) || !station.dataViewers.includes(user.id)) return null;
  const given = await db().prisma.accessRequest.findMany({
    where: { stationId: station.id, userId: user.id, status: "approved", granted: true, OR: [{ validUntil: null }, { validUntil: { gt: now } }] },
    select: { validUntil: true },
  });
  if (given.length === 0 || given.some((r) => r.validUntil === null)) return null;
  return new Date(Math.max(...given.map((r) => r.validUntil!.getTime())));
}

/** Whether any series of the station is not publicly available. */
async function hasProtectedData(stationId: number): Promise<boolean> {
  return (await db().prisma.timeseries.findFirst({ where: { publiclyAvailable: false, group: { stationId } }, select: { id: true } })) !== null;
}

// ---- reading ----

export interface AccessFilter {
  status?: AccessStatus;
}

/** Which requests of the station the actor sees: an editor all, another user their own (401 for anonymous). */
async function visibleScope(actor: Actor, stationId: number): Promise<{ stationId: number; userId?: number }> {
  const station = await existingStation(stationId);
  const user = ensureUser(actor);
  return isEditor(user, station) ? { stationId } : { stationId, userId: user.id };
}

export async function countAccessRequests(actor: Actor, stationId: number, filter: AccessFilter = {}): Promise<number> {
  const scope = await visibleScope(actor, stationId);
  return db().prisma.accessRequest.count({ where: { ...scope, ...filter } });
}

/** A page of the requests the actor sees, newest first (call countAccessRequests first: it checks the permission). */
export async function accessRequestsPage(actor: Actor, stationId: number, filter: AccessFilter, offset: number, limit: number): Promise<AccessRequestJson[]> {
  const scope = await visibleScope(actor, stationId);
  const rows = await db().prisma.accessRequest.findMany({ where: { ...scope, ...filter }, include: INCLUDE, orderBy: { id: "desc" }, skip: offset, take: limit });
  return rows.map(accessRequestJson);
}

/** The request of the station (404), and the station. */
async function findRequest(stationId: number, id: number): Promise<{ station: StationAccess; request: Row }> {
  const station = await existingStation(stationId);
  const request = await db().prisma.accessRequest.findFirst({ where: { id, stationId }, include: INCLUDE });
  if (!request) throw new NotFound();
  return { station, request };
}

/** One request, for its requester and the station's editors. */
export async function getAccessRequest(actor: Actor, stationId: number, id: number): Promise<AccessRequestJson> {
  const { station, request } = await findRequest(stationId, id);
  const user = ensureUser(actor);
  if (request.userId !== user.id && !isEditor(user, station)) throw new PermissionDenied(false);
  return accessRequestJson(request);
}

// ---- writing ----

export interface NewAccessRequest {
  message: string;
}

/**
 * A new request of the actor: any logged-in user who cannot read the station's protected data
 * yet, or reads it only until an approval's end date (accessEndOf).
 */
export async function createAccessRequest(actor: Actor, stationId: number, given: Given<NewAccessRequest, StationAccess>, site: string, locale: Locale = DEFAULT_LOCALE): Promise<AccessRequestJson> {
  const station = await existingStation(stationId);
  const user = ensureUser(actor);
  const values = await valuesOf(given, station);
  if (isDataReader(user, station) && !(await accessEndOf(user, station))) throw ValidationFailed.nonField(ALREADY_READER);
  if (!(await hasProtectedData(stationId))) throw ValidationFailed.nonField(NOTHING_PROTECTED);
  try {
    return await db().write(async (tx) => {
      if (await tx.accessRequest.findFirst({ where: { stationId, userId: user.id, status: "pending" }, select: { id: true } })) {
        throw ValidationFailed.nonField(ALREADY_PENDING);
      }
      const created = await tx.accessRequest.create({ data: { stationId, userId: user.id, message: values.message, status: "pending", created: new Date() }, include: INCLUDE });
      await recordActivity(tx, actor, {
        action: "create", objectType: "access_request", objectId: created.id, stationId,
        summary: `Requested access to the data of ${stationNamed(created)}`,
      });
      await queueAccessMails(tx, "requested", facts(created), await requestRecipients(tx, stationId), site, locale);
      return accessRequestJson(created);
    });
  } catch (e) {
    // Another request of the same user and station was made at the same moment (the partial unique index).
    const code = (e as { code?: string }).code;
    if (code === "P2002" || code === "23505") throw ValidationFailed.nonField(ALREADY_PENDING);
    throw e;
  }
}

/** A decision's request, if the actor may decide it: an editor of its station. */
async function decidable(actor: Actor, stationId: number, id: number): Promise<Row> {
  const { station, request } = await findRequest(stationId, id);
  const user = ensureUser(actor);
  if (!isEditor(user, station)) throw new PermissionDenied(false);
  return request;
}

/** Marks the request decided if it still is pending (another editor may have decided it meanwhile). */
async function decide(tx: Tx, actor: Actor, id: number, data: { status: AccessStatus; validUntil?: Date | null; reason?: string; remindedAt?: Date | null }): Promise<Row> {
  const { count } = await tx.accessRequest.updateMany({ where: { id, status: "pending" }, data: { ...data, decided: new Date(), decidedById: actor!.id } });
  if (count === 0) throw ValidationFailed.nonField(NOT_PENDING);
  return tx.accessRequest.findUniqueOrThrow({ where: { id }, include: INCLUDE });
}

export interface Approval {
  /** YYYY-MM-DD, or null for no end */
  validUntil: string | null;
}

/** The kind of the job that ends an approved access when its valid_until begins (lib/access/expiry.ts). */
export const END_KIND = "access.end";

/** Queues, in the approval's transaction, the job that ends the access at `validUntil`. */
async function queueAccessEnd(tx: Tx, requestId: number, validUntil: Date, now: Date): Promise<void> {
  await tx.$queryRaw(enqueueSql({ kind: END_KIND, key: `access-end:${requestId}`, delayMs: Math.max(0, validUntil.getTime() - now.getTime()) }));
}

/** The instant an access given until `date` ends, checked to be after today. */
function accessEnd(date: string | null, now: Date): Date | null {
  if (date === null) return null;
  const end = new Date(`${date}T00:00:00Z`);
  if (end.getTime() <= now.getTime()) throw ValidationFailed.field("valid_until", NOT_AFTER_TODAY);
  return end;
}

/**
 * Approves a pending request: the requester reads the station's protected data until valid_until.
 * It replaces the requester's earlier approvals of the station still in force (a request to extend
 * a time-limited access): they end now (as expired, with no e-mail of their own), and the access
 * they gave goes on until the new valid_until (null: with no end).
 */
export async function approveAccessRequest(actor: Actor, stationId: number, id: number, given: Given<Approval, void>, site: string, locale: Locale = DEFAULT_LOCALE): Promise<AccessRequestJson> {
  const pending = await decidable(actor, stationId, id);
  const values = await valuesOf(given, undefined);
  const now = new Date();
  const validUntil = accessEnd(values.validUntil, now);
  // An access that ends within the reminder's week needs no reminder: the approval gives the date.
  const remindedAt = validUntil && validUntil.getTime() - now.getTime() <= REMINDER_DAYS * DAY_MS ? now : null;
  return db().write(async (tx) => {
    const request = await decide(tx, actor, id, { status: "approved", validUntil, remindedAt });
    const key = { stationId_userId: { stationId, userId: pending.userId } };
    const existing = await tx.stationDataViewer.findUnique({ where: key });
    if (!existing) await tx.stationDataViewer.create({ data: { stationId, userId: pending.userId } });
    const replaced = { stationId, userId: pending.userId, status: "approved", id: { not: id } };
    // The viewing an earlier approval gave is this one's now: its end ends it.
    const carried = existing !== null && (await tx.accessRequest.count({ where: { ...replaced, granted: true } })) > 0;
    await tx.accessRequest.updateMany({ where: replaced, data: { status: "expired", granted: false } });
    await tx.accessRequest.update({ where: { id }, data: { granted: !existing || carried } });
    await recordActivity(tx, actor, {
      action: "approve", objectType: "access_request", objectId: id, stationId,
      summary: `Approved access of ${who(request)} to the data of ${stationNamed(request)} ${values.validUntil ? `until ${values.validUntil}` : "with no end date"}`,
    });
    if (validUntil) await queueAccessEnd(tx, id, validUntil, now);
    await queueAccessMails(tx, "approved", facts(request), [request.user.email], site, locale);
    return accessRequestJson(request);
  });
}

export interface Denial {
  reason: string;
}

/** Denies a pending request, keeping the reason (which the requester is told). */
export async function denyAccessRequest(actor: Actor, stationId: number, id: number, given: Given<Denial, void>, site: string, locale: Locale = DEFAULT_LOCALE): Promise<AccessRequestJson> {
  await decidable(actor, stationId, id);
  const values = await valuesOf(given, undefined);
  return db().write(async (tx) => {
    const request = await decide(tx, actor, id, { status: "denied", reason: values.reason });
    await recordActivity(tx, actor, {
      action: "deny", objectType: "access_request", objectId: id, stationId,
      summary: `Denied access of ${who(request)} to the data of ${stationNamed(request)}: ${values.reason}`,
    });
    await queueAccessMails(tx, "denied", facts(request), [request.user.email], site, locale);
    return accessRequestJson(request);
  });
}

/**
 * The requester withdraws the request (it is deleted); withdrawing an approved one gives up the
 * access it gave.
 */
export async function withdrawAccessRequest(actor: Actor, stationId: number, id: number): Promise<void> {
  const { request } = await findRequest(stationId, id);
  const user = ensureUser(actor);
  if (request.userId !== user.id) throw new PermissionDenied(false);
  await db().write(async (tx) => {
    const current = await tx.accessRequest.findUnique({ where: { id } });
    if (!current) return;
    await tx.accessRequest.delete({ where: { id } });
    const gaveUp = current.status === "approved" && current.granted;
    if (gaveUp) await endViewing(tx, stationId, user.id);
    await recordActivity(tx, actor, {
      action: "delete", objectType: "access_request", objectId: id, stationId,
      summary: `Withdrew the ${current.status} access request to the data of ${stationNamed(request)}${gaveUp ? " (the access ended)" : ""}`,
    });
  });
}

/**
 * Ends the user's viewing of the station's data given by an approval, unless another approval
 * still in force gives it too.
 */
export async function endViewing(tx: Tx, stationId: number, userId: number, now = new Date()): Promise<void> {
  const other = await tx.accessRequest.findFirst({
    where: { stationId, userId, status: "approved", granted: true, OR: [{ validUntil: null }, { validUntil: { gt: now } }] },
    select: { id: true },
  });
  if (!other) await tx.stationDataViewer.deleteMany({ where: { stationId, userId } });
}

// ---- pages ----

export type PendingRequest = AccessRequestJson & { station_name: string; email: string };

/** Pending requests of the stations the user edits (the /manage/ page), oldest first, at most `limit`. */
export async function pendingForEditor(user: Actor, limit = 100): Promise<PendingRequest[]> {
  if (!user || !user.isActive) return [];
  const where = user.isSuperuser
    ? { status: "pending" }
    : { status: "pending", station: { OR: [{ creatorId: user.id }, { maintainers: { some: { userId: user.id } } }] } };
  const rows = await db().prisma.accessRequest.findMany({ where, include: INCLUDE, orderBy: { id: "asc" }, take: limit });
  return rows.map((r) => ({ ...accessRequestJson(r), station_name: r.station.name, email: r.user.email }));
}

/**
 * What the station and series pages offer a logged-in user about the station's protected data:
 * `state` "request" (they cannot read it, or only until `until`, and have no pending request) or
 * "pending"; `until` (YYYY-MM-DD, the first day without access) when they read it until an
 * approval's end; null: nothing to offer (no protected data, or they read it for good).
 */
export interface AccessOffer {
  state: "request" | "pending";
  until: string | null;
}

export async function accessOffer(user: Actor, stationId: number): Promise<AccessOffer | null> {
  if (!user || !user.isActive) return null;
  const station = await stationAccess(stationId);
  if (!station) return null;
  const end = isDataReader(user, station) ? await accessEndOf(user, station) : null;
  if (isDataReader(user, station) && !end) return null;
  if (!(await hasProtectedData(station.id))) return null;
  const pending = await db().prisma.accessRequest.findFirst({ where: { stationId: station.id, userId: user.id, status: "pending" }, select: { id: true } });
  return { state: pending ? "pending" : "request", until: dateOf(end) };
}
