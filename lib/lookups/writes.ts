import { groupTitle } from "@/lib/site/names";
import { ensureSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, type Prisma, type Tx } from "@/lib/db";
import { changedFields, changeSummary, named, recordActivity } from "@/lib/domain/activity-log";
import { ensureUnchanged, type ChangeOptions, type Versioned } from "@/lib/domain/concurrency";
import { Conflict, NotFound } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import type { LookupName } from "@/lib/lookups/lookups";
import { descrNorm, gareaNorm, organizationNorm, personNorm } from "@/lib/domain/norms";
import { writeExactFloats } from "@/lib/db/dialect-sql";
import { countText } from "@/lib/site/numbers";

/**
 * Lookup writes for superusers (api.md §11): how each lookup is created, changed and deleted.
 * Deleting an object still referred to is refused (Conflict).
 */

/**
 * A lookup's values, by the field names of api.md §11 (parsed by lib/lookups/fields.ts);
 * `geom` of an area is its normalized EWKT and box.
 */
export type LookupValues = Record<string, unknown>;
export type AreaGeom = { ewkt: string; bbox: [number, number, number, number] };

interface LookupWriter {
  create(tx: Tx, v: LookupValues): Promise<number>;
  update(tx: Tx, id: number, v: LookupValues): Promise<void>;
  /** Deletes the object (nothing refers to it: see `referrers`). */
  remove(tx: Tx, id: number): Promise<void>;
}

type V = LookupValues;
const now = () => new Date();
const defined = (o: V) => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined));

function descrLookup(model: "stationType" | "eventType" | "variable", searchable: boolean): LookupWriter {
  const norm = (v: V) => (searchable && v.descr !== undefined ? { descrNorm: descrNorm(String(v.descr)) } : {});
  const delegate = (tx: Tx) => tx[model] as unknown as {
    create(a: { data: V }): Promise<{ id: number }>;
    update(a: { where: { id: number }; data: V }): Promise<unknown>;
    delete(a: { where: { id: number } }): Promise<unknown>;
  };
  return {
    create: async (tx, v) => (await delegate(tx).create({ data: { descr: v.descr, descrEl: v.descr_el, ...norm(v), lastModified: now() } })).id,
    update: async (tx, id, v) => void (await delegate(tx).update({ where: { id }, data: defined({ descr: v.descr, descrEl: v.descr_el, ...norm(v), lastModified: now() }) })),
    remove: async (tx, id) => void (await delegate(tx).delete({ where: { id } })),
  };
}

const LOOKUP_WRITERS: Record<LookupName, LookupWriter> = {
  stationtypes: descrLookup("stationType", true),
  eventtypes: descrLookup("eventType", false),
  variables: descrLookup("variable", true),
  filetypes: {
    create: async (tx, v) => (await tx.fileType.create({ data: { descr: v.descr as string, descrEl: v.descr_el as string | undefined, mimeType: v.mime_type as string, lastModified: now() } })).id,
    update: async (tx, id, v) => void (await tx.fileType.update({ where: { id }, data: defined({ descr: v.descr, descrEl: v.descr_el, mimeType: v.mime_type, lastModified: now() }) })),
    remove: async (tx, id) => void (await tx.fileType.delete({ where: { id } })),
  },
  organizations: {
    async create(tx, v) {
      const data = { remarks: v.remarks as string, name: v.name as string, acronym: v.acronym as string };
      return (await tx.lentity.create({ data: { kind: "organization", organization: { create: { ...data, searchNorm: organizationNorm(data), lastModified: now() } } } })).id;
    },
    async update(tx, id, v) {
      const current = await tx.organization.findUniqueOrThrow({ where: { id } });
      const merged = { ...current, ...defined({ remarks: v.remarks, name: v.name, acronym: v.acronym }) };
      await tx.organization.update({ where: { id }, data: { remarks: merged.remarks, name: merged.name, acronym: merged.acronym, searchNorm: organizationNorm(merged), lastModified: now() } });
    },
    remove: async (tx, id) => void (await tx.lentity.delete({ where: { id } })),
  },
  persons: {
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
    remove: async (tx, id) => void (await tx.lentity.delete({ where: { id } })),
  },
  units: {
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
    remove: async (tx, id) => void (await tx.unitOfMeasurement.delete({ where: { id } })),
  },
  gareas: {
    async create(tx, v) {
      const g = v.geom as AreaGeom;
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
      const g = v.geom as AreaGeom | undefined;
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
    remove: async (tx, id) => void (await tx.gentity.delete({ where: { id } })),
  },
};

/** Each lookup's model, its noun in the activity log, and how an object is named there. */
const LOOKUP_MODELS: Record<LookupName, { model: Versioned; noun: string }> = {
  stationtypes: { model: "stationType", noun: "station type" },
  eventtypes: { model: "eventType", noun: "event type" },
  variables: { model: "variable", noun: "variable" },
  filetypes: { model: "fileType", noun: "file type" },
  organizations: { model: "organization", noun: "organization" },
  persons: { model: "person", noun: "person" },
  units: { model: "unitOfMeasurement", noun: "unit of measurement" },
  gareas: { model: "garea", noun: "geographical area" },
};

/** The stored object with the fields its API form names (for the activity log's comparisons). */
async function lookupRow(tx: Tx, name: LookupName, id: number): Promise<Record<string, unknown> | null> {
  const where = { where: { id } };
  switch (name) {
    case "stationtypes": return tx.stationType.findUnique(where);
    case "eventtypes": return tx.eventType.findUnique(where);
    case "variables": return tx.variable.findUnique(where);
    case "filetypes": {
      const r = await tx.fileType.findUnique(where);
      return r && { ...r, mime_type: r.mimeType };
    }
    case "organizations": return tx.organization.findUnique(where);
    case "persons": {
      const r = await tx.person.findUnique(where);
      return r && { ...r, last_name: r.lastName, first_name: r.firstName, middle_names: r.middleNames };
    }
    case "units": {
      const r = await tx.unitOfMeasurement.findUnique({ ...where, include: { variables: { select: { variableId: true } } } });
      return r && { ...r, variables: r.variables.map((v) => v.variableId) };
    }
    case "gareas": return tx.garea.findUnique(where);
  }
}

/** `variable "Temperature"`, `person "Christofides Antonis"`, `unit of measurement "°C"`. */
function lookupLabel(name: LookupName, row: Record<string, unknown> | null, id: number): string {
  const text = (key: string) => String(row?.[key] ?? "");
  const label = name === "persons" ? `${text("lastName")} ${text("firstName")}`.trim()
    : name === "organizations" ? text("name") || text("acronym")
    : name === "units" ? text("symbol")
    : name === "gareas" ? text("name")
    : text("descr");
  return `${LOOKUP_MODELS[name].noun} ${named(label, id)}`;
}

const objectType = (name: LookupName) => LOOKUP_MODELS[name].model.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Whether an object of the lookup exists (for the 404 of writes). */
async function lookupExists(name: LookupName, id: number): Promise<boolean> {
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

const IN_USE = "This object cannot be deleted because other objects refer to it.";

/** How many of the objects that refer to a lookup object its refusal names. */
const REFERRERS_NAMED = 10;

/** The objects that refer to a lookup object: how many, and the names of the first REFERRERS_NAMED. */
interface Referrers { count: number; names: string[]; one: string; many: string }

const stationName = (s: { id: number; name: string }) => s.name || `Station ${s.id}`;

/** What blocks the delete of a lookup object (api.md §11): null for lookups nothing refers to. */
async function referrers(tx: Tx, name: LookupName, id: number): Promise<Referrers | null> {
  const take = REFERRERS_NAMED;
  const stations = async (where: Prisma.StationWhereInput): Promise<Referrers> => {
    const count = await tx.station.count({ where });
    const rows = await tx.station.findMany({ where, select: { id: true, name: true }, orderBy: [{ name: "asc" }, { id: "asc" }], take });
    return { count, names: rows.map(stationName), one: "station", many: "stations" };
  };
  const groups = async (where: Prisma.TimeseriesGroupWhereInput): Promise<Referrers> => {
    const count = await tx.timeseriesGroup.count({ where });
    const rows = await tx.timeseriesGroup.findMany({
      where, select: { id: true, name: true, station: { select: { id: true, name: true } }, variable: { select: { descr: true } } },
      orderBy: [{ station: { name: "asc" } }, { name: "asc" }, { id: "asc" }], take,
    });
    return { count, names: rows.map((g) => `${stationName(g.station)} · ${groupTitle({ id: g.id, name: g.name, variable: g.variable.descr })}`), one: "time series group", many: "time series groups" };
  };
  switch (name) {
    case "stationtypes": return stations({ stypes: { some: { stationTypeId: id } } });
    case "organizations":
    case "persons": return stations({ ownerId: id });
    case "variables": return groups({ variableId: id });
    case "units": return groups({ unitId: id });
    case "eventtypes": {
      const where = { typeId: id };
      const count = await tx.event.count({ where });
      const rows = await tx.event.findMany({
        where, select: { date: true, station: { select: { id: true, name: true } } }, orderBy: [{ station: { name: "asc" } }, { date: "asc" }, { id: "asc" }], take,
      });
      return { count, names: rows.map((e) => `${stationName(e.station)} (${e.date})`), one: "event", many: "events" };
    }
    case "filetypes":
    case "gareas": return null;
  }
}

/** The refusal of the delete: the API's fixed detail, and for the pages what refers to the object (`It is used by 12 stations: A, B, … and 2 more.`). */
function inUse(r: Referrers): Conflict {
  const more = r.count - r.names.length;
  const names = `${r.names.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
  return new Conflict(IN_USE, `${IN_USE} It is used by ${countText(r.count, r.one, r.many)}: ${names}.`);
}

/** Inserts an object of the lookup in the caller's transaction, without a permission check (replication); its id. */
export function insertLookup(tx: Tx, name: LookupName, values: LookupValues): Promise<number> {
  return LOOKUP_WRITERS[name].create(tx, values);
}

/** A new object of the lookup; its id. */
export async function createLookup(actor: Actor, name: LookupName, given: Given<LookupValues>): Promise<number> {
  ensureSuperuser(actor);
  const values = await valuesOf(given, undefined);
  return db().write(async (tx) => {
    const id = await LOOKUP_WRITERS[name].create(tx, values);
    await recordActivity(tx, actor, {
      action: "create", objectType: objectType(name), objectId: id, stationId: null, summary: `Created ${lookupLabel(name, await lookupRow(tx, name, id), id)}`,
    });
    return id;
  });
}

async function existingLookup(actor: Actor, name: LookupName, id: number): Promise<void> {
  if (!(await lookupExists(name, id))) throw new NotFound();
  ensureSuperuser(actor);
}

/** Changes the fields given. */
export async function updateLookup(actor: Actor, name: LookupName, id: number, given: Given<LookupValues>, options?: ChangeOptions): Promise<void> {
  await existingLookup(actor, name, id);
  const values = await valuesOf(given, undefined);
  await db().write(async (tx) => {
    await ensureUnchanged(tx, LOOKUP_MODELS[name].model, id, options, LOOKUP_MODELS[name].noun);
    const before = await lookupRow(tx, name, id);
    await LOOKUP_WRITERS[name].update(tx, id, values);
    const fields = changedFields(before ?? {}, { ...values, geom: (values.geom as AreaGeom | undefined)?.ewkt });
    await recordActivity(tx, actor, {
      action: "change", objectType: objectType(name), objectId: id, stationId: null,
      summary: changeSummary(lookupLabel(name, await lookupRow(tx, name, id), id), fields),
    });
  });
}

/**
 * Why the object cannot be deleted now (the page's text of the delete's refusal: "… It is used by
 * 5 time series groups: …"), or null if nothing refers to it; for the confirmation page, which
 * says so before offering a delete (the delete itself checks again).
 */
export async function lookupDeleteRefusal(actor: Actor, name: LookupName, id: number): Promise<string | null> {
  await existingLookup(actor, name, id);
  const using = await referrers(db().prisma, name, id);
  return using && using.count > 0 ? inUse(using).explained : null;
}

export async function deleteLookup(actor: Actor, name: LookupName, id: number): Promise<void> {
  await existingLookup(actor, name, id);
  try {
    await db().write(async (tx) => {
      const using = await referrers(tx, name, id);
      if (using && using.count > 0) throw inUse(using);
      const label = lookupLabel(name, await lookupRow(tx, name, id), id);
      await LOOKUP_WRITERS[name].remove(tx, id);
      await recordActivity(tx, actor, { action: "delete", objectType: objectType(name), objectId: id, stationId: null, summary: `Deleted ${label}` });
    });
  } catch (e) {
    // A reference added since the check: the database's foreign key refuses the delete.
    if ((e as { code?: string }).code === "P2003") throw new Conflict(IN_USE);
    throw e;
  }
}
