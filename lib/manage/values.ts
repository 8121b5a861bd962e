import type { AttachmentRow, EventRow, ImageRow, StationJson } from "@/lib/stations";
import type { GroupRow } from "@/lib/series";
import type { ManagedSeries } from "@/lib/manage/home";
import type { UserSummary } from "@/lib/accounts";
import type { FormValues } from "@/lib/site/form-state";
import { lonLat } from "@/lib/frontend";

/**
 * The values of the management forms for stored objects, by the API's field names: what an edit
 * form opens with, and what it shows beside the user's input when the object changed meanwhile.
 */
const iso = (d: Date | null | undefined) => d?.toISOString() ?? "";
const bool = (b: boolean) => (b ? "true" : "false");

/** The point is typed as x, y and an SRID (api.md §4.2); the form composes `geom` from them. */
export function geomText(x: string, y: string, srid: string): string {
  return `SRID=${srid.trim() || "4326"};POINT (${x.trim()} ${y.trim()})`;
}

export function stationValues(s: StationJson, ownerName: string, people: Record<number, string> = {}): FormValues {
  const [lon, lat] = lonLat(s.geom) ?? [0, 0];
  const labels = (ids: number[]) => JSON.stringify(Object.fromEntries(ids.map((id) => [id, people[id] ?? `#${id}`])));
  return {
    last_modified: s.last_modified ?? "",
    name: s.name, code: s.code, owner: String(s.owner), owner_label: ownerName, stype: ["", ...s.stype.map(String)],
    geom_x: String(lon), geom_y: String(lat), geom_srid: "4326", geom_initial: geomText(String(lon), String(lat), "4326"),
    stored_original_srid: s.original_srid === null ? "" : String(s.original_srid),
    altitude: s.altitude === null ? "" : String(s.altitude), display_timezone: s.display_timezone,
    start_date: s.start_date ?? "", end_date: s.end_date ?? "", overseer: s.overseer, remarks: s.remarks,
    maintainers: ["", ...s.maintainers.map(String)], maintainers_labels: labels(s.maintainers),
    data_viewers: ["", ...s.data_viewers.map(String)], data_viewers_labels: labels(s.data_viewers),
  };
}

export function groupValues(g: GroupRow): FormValues {
  return {
    last_modified: iso(g.lastModified), name: g.name, hidden: bool(g.hidden), precision: String(g.precision), remarks: g.remarks,
    variable: String(g.variableId), unit_of_measurement: String(g.unitId),
  };
}

export function seriesValues(t: ManagedSeries): FormValues {
  return { last_modified: t.lastModified ?? "", type: t.type, time_step: t.timeStep, name: t.name, publicly_available: bool(t.publiclyAvailable) };
}

export function attachmentValues(row: AttachmentRow): FormValues {
  const values: FormValues = { last_modified: iso(row.lastModified), date: row.date ?? "", descr: row.descr, remarks: row.remarks };
  if ("featured" in row) values.featured = bool((row as ImageRow).featured);
  return values;
}

export function eventValues(e: EventRow): FormValues {
  return { last_modified: iso(e.lastModified), date: e.date, user: e.user, report: e.report, type: String(e.typeId) };
}

/** A lookup object of the API (api.md §11) as form values; `variables` of a unit is a list. */
export function lookupValues(json: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === "id") continue;
    values[key] = Array.isArray(value) ? ["", ...value.map(String)] : value === null ? "" : String(value);
  }
  return values;
}

export function userValues(u: UserSummary): FormValues {
  return {
    username: u.username, email: u.email, first_name: u.firstName, last_name: u.lastName,
    is_active: bool(u.isActive), is_superuser: bool(u.isSuperuser), can_add_stations: bool(u.canAddStations),
  };
}
