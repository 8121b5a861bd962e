import { settings } from "@/lib/config";
import { PermissionDenied } from "@/lib/domain/errors";
import type { AuthUser } from "@/lib/auth/users";

/**
 * The permission model of api.md §15, in one place: yes/no functions for pages (show only what
 * the user may use) and `ensure…` functions for services, which throw PermissionDenied (401 for
 * an anonymous actor, 403 for a known one, api.md §15.3).
 */

/** What permission checks need to know about a station (read by lib/stations). */
export interface StationAccess {
  id: number;
  creatorId: number | null;
  maintainers: number[];
  dataViewers: number[];
  /** The replication source the station is copied from (read-only here), or null. */
  replicatedFrom: number | null;
}

/** Who acts: the authenticated user, or null for an anonymous request. */
export type Actor = AuthUser | null;

export function isEditor(user: Actor, station: StationAccess): boolean {
  if (!user || !user.isActive) return false;
  return user.isSuperuser || station.creatorId === user.id || station.maintainers.includes(user.id);
}

export function isDataReader(user: Actor, station: StationAccess): boolean {
  return isEditor(user, station) || (!!user && user.isActive && station.dataViewers.includes(user.id));
}

export function canCreateStation(user: Actor): boolean {
  if (!user || !user.isActive) return false;
  return user.isSuperuser || user.canAddStations || settings().usersCanAddContent;
}

/** May the user read the records of a series with this flag at this station? */
export function canReadData(user: Actor, station: StationAccess, publiclyAvailable: boolean): boolean {
  return publiclyAvailable || isDataReader(user, station);
}

/** Lookup writes (api.md §11). */
export function isSuperuser(user: Actor): boolean {
  return !!user && user.isActive && user.isSuperuser;
}

function ensure(allowed: boolean, actor: Actor): void {
  if (!allowed) throw new PermissionDenied(actor === null);
}

export function ensureUser(actor: Actor): AuthUser {
  ensure(actor !== null, actor);
  return actor!;
}

/** The refusal of a write to a replicated station, whoever asks (replication.md §2). */
export const REPLICATED_READ_ONLY = "This station is replicated from another instance and is read-only here; a superuser may detach it.";

/**
 * May the user change the station and what belongs to it: an editor, and the station is not a
 * copy of another instance's (replicated stations are read-only until detached). Pages show
 * edit links only where this holds.
 */
export function canEditStation(user: Actor, station: StationAccess): boolean {
  return isEditor(user, station) && station.replicatedFrom === null;
}

export function ensureEditor(actor: Actor, station: StationAccess): void {
  ensure(isEditor(actor, station), actor);
  if (station.replicatedFrom !== null) throw new PermissionDenied(false, REPLICATED_READ_ONLY);
}

export function ensureDataReader(actor: Actor, station: StationAccess, publiclyAvailable: boolean): void {
  ensure(canReadData(actor, station, publiclyAvailable), actor);
}

export function ensureSuperuser(actor: Actor): void {
  ensure(isSuperuser(actor), actor);
}

export function ensureStationCreator(actor: Actor): AuthUser {
  ensure(canCreateStation(actor), actor);
  return actor!;
}
