import { LOOKUP_NAMES, type LookupName } from "@/lib/lookups/lookups";

/** How the lookups pages (management.md §2; api.md §11) name and show each lookup and its fields. */
export interface LookupField {
  name: string;
  label: string;
  kind: "text" | "textarea" | "variables" | "geom";
  max?: number;
  required?: boolean;
  help?: string;
}

export interface LookupForm {
  title: string;
  singular: string;
  fields: LookupField[];
  /** The name of an object (its API JSON) in lists and headings. */
  label(json: Record<string, unknown>): string;
}

/** The optional Greek description of the translatable lookups (public.md §3). */
const descrEl: LookupField = { name: "descr_el", label: "Description in Greek", kind: "text", max: 200, help: "Optional: the pages in Greek show it instead of the description." };
const descrForm = (title: string, singular: string): LookupForm => ({
  title, singular, fields: [{ name: "descr", label: "Description", kind: "text", max: 200 }, descrEl], label: (j) => String(j.descr ?? ""),
});
const remarks: LookupField = { name: "remarks", label: "Remarks", kind: "textarea" };

export const LOOKUP_FORMS: Record<LookupName, LookupForm> = {
  stationtypes: descrForm("Station types", "station type"),
  eventtypes: descrForm("Event types", "event type"),
  variables: descrForm("Variables", "variable"),
  filetypes: {
    title: "File types", singular: "file type", label: (j) => String(j.descr ?? ""),
    fields: [{ name: "descr", label: "Description", kind: "text", max: 200 }, descrEl, { name: "mime_type", label: "MIME type", kind: "text", max: 100, help: "e.g. application/pdf" }],
  },
  organizations: {
    title: "Organizations", singular: "organization", label: (j) => String(j.name || j.acronym || ""),
    fields: [{ name: "name", label: "Name", kind: "text", max: 200 }, { name: "acronym", label: "Acronym", kind: "text", max: 50 }, remarks],
  },
  persons: {
    title: "Persons", singular: "person", label: (j) => `${j.last_name ?? ""} ${j.first_name ?? ""}`.trim(),
    fields: [
      { name: "last_name", label: "Last name", kind: "text", max: 100 }, { name: "first_name", label: "First name", kind: "text", max: 100 },
      { name: "middle_names", label: "Middle names", kind: "text", max: 100 }, { name: "initials", label: "Initials", kind: "text", max: 20 }, remarks,
    ],
  },
  units: {
    title: "Units of measurement", singular: "unit of measurement", label: (j) => `${j.symbol ?? ""}${j.descr ? ` (${j.descr})` : ""}`,
    fields: [
      { name: "symbol", label: "Symbol", kind: "text", max: 50, required: true }, { name: "descr", label: "Description", kind: "text", max: 200 },
      { name: "variables", label: "Variables", kind: "variables", help: "The variables measured in this unit (a hint for forms; not enforced)." },
    ],
  },
  gareas: {
    title: "Geographical areas", singular: "geographical area", label: (j) => String(j.name ?? ""),
    fields: [
      { name: "name", label: "Name", kind: "text", max: 200 }, { name: "code", label: "Code", kind: "text", max: 50 },
      { name: "geom", label: "Geometry", kind: "geom", required: true, help: "WKT or EWKT POLYGON or MULTIPOLYGON, e.g. SRID=2100;POLYGON ((…))." }, remarks,
    ],
  },
};

/** The lookup a path names, or null. */
export function lookupOf(text: string): LookupName | null {
  return (LOOKUP_NAMES as readonly string[]).includes(text) ? (text as LookupName) : null;
}
