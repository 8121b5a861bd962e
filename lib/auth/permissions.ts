import { settings } from "@/lib/config";
import { forbidden, unauthorized, type Challenge } from "@/lib/http/errors";
import type { AuthUser } from "@/lib/auth/users";
import type { StationAccess } from "@/lib/services/stations";

/** The permission model of api.md §15, in one place. */

export function isEditor(user: AuthUser | null, station: StationAccess): boolean {
  if (!user || !user.isActive) return false;
  return user.isSuperuser || station.creatorId === user.id || station.maintainers.includes(user.id);
}

export function isDataReader(user: AuthUser | null, station: StationAccess): boolean {
  return isEditor(user, station) || (!!user && user.isActive && station.dataViewers.includes(user.id));
}

export function canCreateStation(user: AuthUser | null): boolean {
  if (!user || !user.isActive) return false;
  return user.isSuperuser || user.canAddStations || settings().usersCanAddContent;
}

/** May the user read the records of a series with this flag at this station? */
export function canReadData(user: AuthUser | null, station: StationAccess, publiclyAvailable: boolean): boolean {
  return publiclyAvailable || isDataReader(user, station);
}

/** The refusal for a request: 401 when anonymous, 403 for a known user (api.md §15.3). */
export function denied(user: AuthUser | null, challenge: Challenge) {
  return user ? forbidden() : unauthorized(challenge);
}

interface Caller {
  auth: { user: AuthUser | null };
  challenge: Challenge;
}

export function requireUser(ctx: Caller): AuthUser {
  if (!ctx.auth.user) throw unauthorized(ctx.challenge);
  return ctx.auth.user;
}

export function requireEditor(ctx: Caller, station: StationAccess): void {
  if (!isEditor(ctx.auth.user, station)) throw denied(ctx.auth.user, ctx.challenge);
}

export function requireDataReader(ctx: Caller, station: StationAccess, publiclyAvailable: boolean): void {
  if (!canReadData(ctx.auth.user, station, publiclyAvailable)) throw denied(ctx.auth.user, ctx.challenge);
}

export function requireSuperuser(ctx: Caller): void {
  const user = ctx.auth.user;
  if (!user?.isSuperuser) throw denied(user, ctx.challenge);
}

export function requireStationCreator(ctx: Caller): AuthUser {
  const user = requireUser(ctx);
  if (!canCreateStation(user)) throw forbidden();
  return user;
}
