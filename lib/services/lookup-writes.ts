import { db, type Tx } from "@/lib/db";
import { parseAreaGeom } from "@/lib/geo/wkt";
import { pkList, text, type Field, type FieldSpec } from "@/lib/http/fields";
import { z } from "zod";
import type { LookupName } from "@/lib/services/lookups";
import { descrNorm, gareaNorm, organizationNorm, personNorm } from "@/lib/services/norms";
import { existing } from "@/lib/services/refs";
import { writeExactFloats } from "@/lib/services/sql";

/**
 * Lookup writes for superusers (api.md §11): the fields of each lookup, and how it is created,
 * changed and deleted. Deleting an object still referenced is refused (the caller answers 409).
 */
export interface LookupWriter {
  fields(): FieldSpec;
  create(tx: Tx, v: Record<string, unknown>): Promise<number>;
  update(tx: Tx, id: number, v: Record<string, unknown>): Promise<void>;
  /** False when something still refers to the object. */
  remove(tx: Tx, id: number): Promise<boolean>;
}

type V = Record<string, unknown>;
const now = () => new Date();
const defined = (o: V) => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined));

/** Area geometry: WKT/EWKT POLYGON or MULTIPOLYGON, stored as normalized EWKT plus its box. */
function areaField(): Field<{ ewkt: string; bbox: [number, number, number, number] }> {
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

function descrLookup(model: "stationType" | "eventType" | "variable", searchable: boolean): LookupWriter {
  const norm = (v: V) => (searchable && v.descr !== undefined ? { descrNorm: descrNorm(String(v.descr)) } : {});
  const delegate = (tx: Tx) => tx[model] as unknown as {
    create(a: { data: V }): Promise<{ id: number }>;
    update(a: { where: { id: number }; data: V }): Promise<unknown>;
    delete(a: { where: { id: number } }): Promise<unknown>;
  };
  return {
    fields: () => ({ descr: text({ max: 200 }) }),
    create: async (tx, v) => (await delegate(tx).create({ data: { descr: v.descr, ...norm(v), lastModified: now() } })).id,
    update: async (tx, id, v) => void (await delegate(tx).update({ where: { id }, data: defined({ descr: v.descr, ...norm(v), lastModified: now() }) })),
    async remove(tx, id) {
      const used = model === "stationType" ? await tx.stationStype.count({ where: { stationTypeId: id } })
        : model === "eventType" ? await tx.event.count({ where: { typeId: id } })
        : await tx.timeseriesGroup.count({ where: { variableId: id } });
      if (used) return false;
      await delegate(tx).delete({ where: { id } });
      return true;
    },
  };
}

async function ownerUnused(tx: Tx, id: number): Promise<boolean> {
  return (await tx.station.count({ where: { ownerId: id } })) === 0;
}

export const LOOKUP_WRITERS: Record<LookupName, LookupWriter> = {
  stationtypes: descrLookup("stationType", true),
  eventtypes: descrLookup("eventType", false),
  variables: descrLookup("variable", true),
  filetypes: {
    fields: () => ({ descr: text({ max: 200 }), mime_type: text({ max: 100 }) }),
    create: async (tx, v) => (await tx.fileType.create({ data: { descr: v.descr as string, mimeType: v.mime_type as string, lastModified: now() } })).id,
    update: async (tx, id, v) => void (await tx.fileType.update({ where: { id }, data: defined({ descr: v.descr, mimeType: v.mime_type, lastModified: now() }) })),
    remove: async (tx, id) => (await tx.fileType.delete({ where: { id } }), true),
  },
  organizations: {
    fields: () => ({ remarks: text(), name: text({ max: 200 }), acronym: text({ max: 50 }) }),
    async create(tx, v) {
      const data = { remarks: v.remarks as string, name: v.name as string, acronym: v.acronym as string };
      return (await tx.lentity.create({ data: { kind: "organization", organization: { create: { ...data, searchNorm: organizationNorm(data), lastModified: now() } } } })).id;
    },
    async update(tx, id, v) {
      const current = await tx.organization.findUniqueOrThrow({ where: { id } });
      const merged = { ...current, ...defined({ remarks: v.remarks, name: v.name, acronym: v.acronym }) };
      await tx.organization.update({ where: { id }, data: { remarks: merged.remarks, name: merged.name, acronym: merged.acronym, searchNorm: organizationNorm(merged), lastModified: now() } });
    },
    async remove(tx, id) {
      if (!(await ownerUnused(tx, id))) return false;
      await tx.lentity.delete({ where: { id } });
      return true;
    },
  },
  persons: {
    fields: () => ({ remarks: text(), last_name: text({ max: 100 }), first_name: text({ max: 100 }), middle_names: text({ max: 100 }), initials: text({ max: 20 }) }),
    async create(tx, v) {
      const data = { remarks: v.remarks as string, lastName: v.last_name as string, firstName: v.first_name as string, middleNames: v.middle_names as string, initials: v.initials as string };
      return (await tx.lentity.create({ data: { kind: "person", person: { create: { ...data, searchNorm: personNorm(data), lastModified: now() } } } })).id;
    },
    async update(tx, id, v) {
      const current = await tx.person.findUniqueOrThrow({ where: { id } });
      const merged = { ...current, ...defined({ remarks: v.remarks, lastName: v.last_name, firstName: v.first_name, middleNames: v.middle_names, initials: v.initials }) };
      await tx.person.update({
        where: { id },
        data: { remarks: merged.remarks, lastName: merged.lastName, firstName: merged.firstName, middleNames: merged.middleNames, initials: merged.initials, searchNorm: personNorm(merged), lastModified: now() },
      });
    },
    async remove(tx, id) {
      if (!(await ownerUnused(tx, id))) return false;
      await tx.lentity.delete({ where: { id } });
      return true;
    },
  },
  units: {
    fields: () => ({ descr: text({ max: 200 }), symbol: text({ max: 50, required: true, blank: false }), variables: pkList(existing("variable")) }),
    async create(tx, v) {
      const ids = (v.variables as number[] | undefined) ?? [];
      return (await tx.unitOfMeasurement.create({
        data: { descr: (v.descr as string) ?? "", symbol: v.symbol as string, lastModified: now(), variables: { create: ids.map((variableId) => ({ variableId })) } },
      })).id;
    },
    async update(tx, id, v) {
      await tx.unitOfMeasurement.update({ where: { id }, data: defined({ descr: v.descr, symbol: v.symbol, lastModified: now() }) });
      if (v.variables) {
        await tx.unitVariable.deleteMany({ where: { unitId: id } });
        await tx.unitVariable.createMany({ data: (v.variables as number[]).map((variableId) => ({ unitId: id, variableId })) });
      }
    },
    async remove(tx, id) {
      if (await tx.timeseriesGroup.count({ where: { unitId: id } })) return false;
      await tx.unitOfMeasurement.delete({ where: { id } });
      return true;
    },
  },
  gareas: {
    fields: () => ({ name: text({ max: 200 }), code: text({ max: 50 }), remarks: text(), geom: areaField() }),
    async create(tx, v) {
      const g = v.geom as { ewkt: string; bbox: [number, number, number, number] };
      const gentity = await tx.gentity.create({ data: { kind: "garea" } });
      const data = { name: v.name as string, code: v.code as string, remarks: v.remarks as string };
      await tx.garea.create({
        data: { id: gentity.id, ...data, geom: g.ewkt, minLon: g.bbox[0], minLat: g.bbox[1], maxLon: g.bbox[2], maxLat: g.bbox[3], searchNorm: gareaNorm(data), lastModified: now() },
      });
      await writeExactFloats(tx, "garea", gentity.id, { min_lon: g.bbox[0], min_lat: g.bbox[1], max_lon: g.bbox[2], max_lat: g.bbox[3] });
      return gentity.id;
    },
    async update(tx, id, v) {
      const current = await tx.garea.findUniqueOrThrow({ where: { id } });
      const g = v.geom as { ewkt: string; bbox: [number, number, number, number] } | undefined;
      const merged = { ...current, ...defined({ name: v.name, code: v.code, remarks: v.remarks }) };
      await tx.garea.update({
        where: { id },
        data: {
          name: merged.name, code: merged.code, remarks: merged.remarks, searchNorm: gareaNorm(merged), lastModified: now(),
          ...(g ? { geom: g.ewkt, minLon: g.bbox[0], minLat: g.bbox[1], maxLon: g.bbox[2], maxLat: g.bbox[3] } : {}),
        },
      });
      if (g) await writeExactFloats(tx, "garea", id, { min_lon: g.bbox[0], min_lat: g.bbox[1], max_lon: g.bbox[2], max_lat: g.bbox[3] });
    },
    remove: async (tx, id) => (await tx.gentity.delete({ where: { id } }), true),
  },
};

/** Whether an object of the lookup exists (for the 404 of writes). */
export async function lookupExists(name: LookupName, id: number): Promise<boolean> {
  const p = db().prisma;
  const where = { where: { id }, select: { id: true } } as const;
  const row = name === "stationtypes" ? await p.stationType.findUnique(where)
    : name === "eventtypes" ? await p.eventType.findUnique(where)
    : name === "variables" ? await p.variable.findUnique(where)
    : name === "filetypes" ? await p.fileType.findUnique(where)
    : name === "organizations" ? await p.organization.findUnique(where)
    : name === "persons" ? await p.person.findUnique(where)
    : name === "units" ? await p.unitOfMeasurement.findUnique(where)
    : await p.garea.findUnique(where);
  return row !== null;
}
