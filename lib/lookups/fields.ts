import { z } from "zod";
import { parseAreaGeom } from "@/lib/geo/wkt";
import type { RequestInput } from "@/lib/http/body";
import { pkList, text, validatedFields, type Field, type FieldSpec, type WriteMode } from "@/lib/http/fields";
import type { AreaGeom, LookupValues } from "@/lib/lookups/writes";
import type { LookupName } from "@/lib/lookups/lookups";
import { existing } from "@/lib/domain/refs";

/** The writable fields of each lookup (api.md §11). */

/** Area geometry: WKT/EWKT POLYGON or MULTIPOLYGON, stored as normalized EWKT plus its box. */
function areaField(): Field<AreaGeom> {
  return {
    required: true,
    parse(raw) {
      if (raw === null) return { ok: false, errors: ["This field may not be null."] };
      const area = parseAreaGeom(typeof raw === "string" ? raw : JSON.stringify(raw));
      return area.ok ? { ok: true, value: { ewkt: area.ewkt, bbox: area.bbox } } : { ok: false, errors: [area.message] };
    },
    schema: z.string().meta({ description: "WKT or EWKT POLYGON or MULTIPOLYGON" }),
  };
}

// descr_el: the optional Greek description (public.md §3).
const descr = () => ({ descr: text({ max: 200 }), descr_el: text({ max: 200 }) });

export const LOOKUP_FIELDS: Record<LookupName, () => FieldSpec> = {
  stationtypes: descr,
  eventtypes: descr,
  variables: descr,
  filetypes: () => ({ descr: text({ max: 200 }), descr_el: text({ max: 200 }), mime_type: text({ max: 100 }) }),
  organizations: () => ({ remarks: text(), name: text({ max: 200 }), acronym: text({ max: 50 }) }),
  persons: () => ({ remarks: text(), last_name: text({ max: 100 }), first_name: text({ max: 100 }), middle_names: text({ max: 100 }), initials: text({ max: 20 }) }),
  units: () => ({ descr: text({ max: 200 }), symbol: text({ max: 50, required: true, blank: false }), variables: pkList(existing("variable")) }),
  gareas: () => ({ name: text({ max: 200 }), code: text({ max: 50 }), remarks: text(), geom: areaField() }),
};

/** A lookup's fields in a body or a site form. */
export function readLookupInput(name: LookupName, input: RequestInput, mode: WriteMode): Promise<LookupValues> {
  return validatedFields(input, LOOKUP_FIELDS[name](), mode);
}
