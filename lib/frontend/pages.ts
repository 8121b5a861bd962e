import { cache } from "react";
import { chartBody, chartRequest, loadSeriesContext } from "@/lib/series";
import { canReadData, type Actor } from "@/lib/auth/permissions";
import type { ChartPoint } from "@/lib/formats/chart";
import { ValidationFailed } from "@/lib/domain/errors";
import { DEFAULT_LOCALE, type Locale } from "@/lib/i18n/locales";
import { groupDetails, stationDetails, stationWithOwner as readStationWithOwner } from "@/lib/frontend/page-data";

/** What the station and group pages show, read with the lib/ services (never the HTTP API). */

/** A path id: decimal digits only (api.md §1.1); anything else is "not found". */
export function pathId(text: string): number | null {
  if (!/^\d{1,15}$/.test(text)) return null;
  const id = Number(text);
  return id > 0 && Number.isSafeInteger(id) ? id : null;
}

/** The station (§4.1) with its owner's display name, read once per request (the metadata and the page both need it). */
export const stationWithOwner = cache(readStationWithOwner);

export async function stationPageData(id: number, locale: Locale = DEFAULT_LOCALE) {
  const head = await stationWithOwner(id);
  if (!head) return null;
  return { ...head, ...(await stationDetails(head.station, locale)) };
}

/** The group page: the group of this station (else null), its series and what the user may read. */
export function groupPageData(stationId: number, groupId: number, user: Actor, locale: Locale = DEFAULT_LOCALE) {
  return groupDetails(stationId, groupId, user, locale);
}

/** "Initial", "Aggregated (Daily mean)", … */
export function seriesLabel(s: { type: string; name: string; timeStep: string }): string {
  const parts = [s.name, s.timeStep].filter(Boolean);
  return parts.length ? `${s.type} (${parts.join(", ")})` : s.type;
}

/** "10min", "D", "irregular" */
export function timeStepLabel(step: string): string {
  return step || "irregular";
}

export { lonLat } from "@/lib/site/geom";

/**
 * The first chart of the group page, read on the server so the browser draws it as soon as the
 * page is hydrated instead of asking for it afterwards. `url` is the chart/ request the browser
 * would make (`chartApiUrl`); null when the user may not read the series or the request fails,
 * and the browser then asks for it itself and shows the answer.
 */
export async function initialChart(url: string, seriesId: number, stationId: number, groupId: number, user: Actor): Promise<ChartPoint[] | null> {
  const s = await loadSeriesContext(seriesId, { stationId, groupId });
  if (!s || s.firstTimestamp === null || !canReadData(user, s.access, s.publiclyAvailable)) return null;
  try {
    const request = chartRequest(new URL(url, "http://site").searchParams, s);
    return JSON.parse(await chartBody(s, request, request.validators.etag)) as ChartPoint[];
  } catch (error) {
    if (error instanceof ValidationFailed) return null;
    throw error;
  }
}
