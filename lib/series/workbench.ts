import type { Actor } from "@/lib/auth/permissions";
import { type ComparedSeries, MAX_COMPARED, stepSeconds } from "@/lib/domain/compare";
import { timeStepToMinutesMonths } from "@/lib/formats/time-step";
import { isDatabaseId } from "@/lib/domain/refs";
import { db } from "@/lib/db";
import { descrIn, type Locale } from "@/lib/i18n/locales";
import { readableSeries } from "./context";
import { findSeriesAt } from "./timeseries";

/**
 * What the workbench's address asks to show (corrections.md §3): `?start=…&end=…` (instants as
 * ISO 8601 text, the page writes them in UTC) and `?compare=12,34` (up to five other series). The
 * page writes its address as the user moves, so that a view can be kept or sent; what comes back
 * is checked like any input: a range that does not parse is ignored, and a series that does not
 * exist or that this user may not read is left out, saying nothing of it.
 */

export interface WorkbenchView {
  range: { start: number; end: number } | null;
  compared: ComparedSeries[];
}

type Query = Record<string, string | string[] | undefined>;

/** A series id as the address writes it: decimal digits only. */
const seriesIdOf = (text: string) => (/^\d{1,10}$/.test(text) && isDatabaseId(Number(text)) ? Number(text) : null);

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? "";

/** An instant of the address in epoch seconds, or null. */
function instant(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

export async function workbenchView(actor: Actor, seriesId: number, query: Query): Promise<WorkbenchView> {
  const start = instant(one(query.start));
  const end = instant(one(query.end));
  const range = start !== null && end !== null && start < end ? { start, end } : null;
  const ids = [...new Set(one(query.compare).split(",").map((part) => seriesIdOf(part.trim())).filter((id): id is number => id !== null && id !== seriesId))]
    .slice(0, MAX_COMPARED);
  const compared: ComparedSeries[] = [];
  for (const id of ids) {
    const shown = await readableSeries(actor, { seriesId: id }).catch(() => null);
    const row = shown && (await findSeriesAt({ seriesId: id }));
    if (!shown || !row) continue;
    compared.push({
      stationId: shown.station.id, groupId: shown.group.id, seriesId: id,
      label: `${shown.station.name || `Station ${shown.station.id}`} · ${row.name || `series ${id}`}`, unit: shown.unit.symbol,
      step: stepSeconds(timeStepToMinutesMonths(row.timeStep)),
    });
  }
  return { range, compared };
}

/** The variable of a group in a page's language (public.md §3: descr_el on Greek pages), "" when there is no group. */
export async function groupVariableIn(locale: Locale, groupId: number): Promise<string> {
  const group = await db().prisma.timeseriesGroup.findUnique({ where: { id: groupId }, select: { variable: { select: { descr: true, descrEl: true } } } });
  return group ? descrIn(locale, group.variable) : "";
}
