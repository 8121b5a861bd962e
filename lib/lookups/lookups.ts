import { ensureSuperuser, type Actor } from "@/lib/auth/permissions";
import { db, Prisma } from "@/lib/db";
import { NotFound } from "@/lib/domain/errors";
import { isoMillis } from "@/lib/domain/serialize";

/**
 * The lookup tables of api.md §11: how each is listed (default order), counted, fetched and
 * shown. Writes are in lib/lookups/writes.ts.
 */
export interface LookupReader {
  count(): Promise<number>;
  page(offset: number, limit: number): Promise<object[]>;
  get(id: number): Promise<object | null>;
}

type Row = { lastModified: Date | null };

/** A reader over a Prisma model whose default order Prisma can express. */
function reader<R extends Row>(model: {
  count(): Promise<number>;
  findMany(args: { skip: number; take: number; orderBy: object[] }): Promise<R[]>;
  findUnique(args: { where: { id: number } }): Promise<R | null>;
}, orderBy: object[], json: (row: R) => object): LookupReader {
  return {
    count: () => model.count(),
    page: async (offset, limit) => (await model.findMany({ skip: offset, take: limit, orderBy })).map(json),
    get: async (id) => {
      const row = await model.findUnique({ where: { id } });
      return row ? json(row) : null;
    },
  };
}

type DescrRow = { id: number; lastModified: Date | null; descr: string };
/** The legacy model dumps' shape (legacy.md): no descr_el. */
const descrJson = (r: DescrRow) => ({ id: r.id, last_modified: isoMillis(r.lastModified), descr: r.descr });
/** The API's (api.md §11), with the optional Greek description (public.md §3). */
const descrElJson = (r: DescrRow & { descrEl: string }) => ({ ...descrJson(r), descr_el: r.descrEl });
const BY_DESCR = [{ descr: "asc" }, { id: "asc" }];

export type OrganizationRow = Prisma.OrganizationGetPayload<object>;
export const organizationJson = (r: OrganizationRow) => ({
  id: r.id, last_modified: isoMillis(r.lastModified), remarks: r.remarks, name: r.name, acronym: r.acronym,
});

export type PersonRow = Prisma.PersonGetPayload<object>;
export const personJson = (r: PersonRow) => ({
  id: r.id, last_modified: isoMillis(r.lastModified), remarks: r.remarks, last_name: r.lastName,
  first_name: r.firstName, middle_names: r.middleNames, initials: r.initials,
});

export type UnitRow = Prisma.UnitOfMeasurementGetPayload<{ include: { variables: { select: { variableId: true } } } }>;
export const unitJson = (r: UnitRow) => ({
  id: r.id, last_modified: isoMillis(r.lastModified), descr: r.descr, symbol: r.symbol,
  variables: r.variables.map((v) => v.variableId).sort((a, b) => a - b),
});

export type GareaRow = Prisma.GareaGetPayload<object>;
export const gareaJson = (r: GareaRow) => ({
  id: r.id, last_modified: isoMillis(r.lastModified), name: r.name, code: r.code, remarks: r.remarks, geom: r.geom,
});

export type FileTypeRow = Prisma.FileTypeGetPayload<object>;
export const fileTypeJson = (r: FileTypeRow) => ({
  id: r.id, last_modified: isoMillis(r.lastModified), descr: r.descr, mime_type: r.mimeType,
});
/** descr_el last: the fields clients knew keep their order. */
const fileTypeElJson = (r: FileTypeRow) => ({ ...fileTypeJson(r), descr_el: r.descrEl });

export { descrJson };

const UNIT_INCLUDE = { variables: { select: { variableId: true } } } as const;

export function lookupReaders(): Record<LookupName, LookupReader> {
  const p = db().prisma;
  return {
    stationtypes: reader(p.stationType, BY_DESCR, descrElJson),
    eventtypes: reader(p.eventType, BY_DESCR, descrElJson),
    variables: reader(p.variable, BY_DESCR, descrElJson),
    filetypes: reader(p.fileType, BY_DESCR, fileTypeElJson),
    persons: reader(p.person, [{ lastName: "asc" }, { firstName: "asc" }, { id: "asc" }], personJson),
    units: {
      count: () => p.unitOfMeasurement.count(),
      page: async (skip, take) =>
        (await p.unitOfMeasurement.findMany({ skip, take, orderBy: [{ symbol: "asc" }, { id: "asc" }], include: UNIT_INCLUDE })).map(unitJson),
      get: async (id) => {
        const row = await p.unitOfMeasurement.findUnique({ where: { id }, include: UNIT_INCLUDE });
        return row ? unitJson(row) : null;
      },
    },
    gareas: reader(p.garea, [{ name: "asc" }, { id: "asc" }], gareaJson),
    organizations: {
      count: () => p.organization.count(),
      // The display name (name, or acronym when the name is blank) is not a column.
      page: async (offset, limit) => {
        const ids = await p.$queryRaw<{ id: unknown }[]>`
          SELECT id FROM organization
          ORDER BY CASE WHEN name <> '' THEN name ELSE acronym END, id
          LIMIT ${limit} OFFSET ${offset}`;
        const rows = await p.organization.findMany({ where: { id: { in: ids.map((r) => Number(r.id)) } } });
        const byId = new Map(rows.map((r) => [r.id, r]));
        return ids.map((r) => organizationJson(byId.get(Number(r.id))!));
      },
      get: async (id) => {
        const row = await p.organization.findUnique({ where: { id } });
        return row ? organizationJson(row) : null;
      },
    },
  };
}

/** A lookup object for the management pages' forms (superusers): NotFound first, then PermissionDenied. */
export async function lookupForAdmin(actor: Actor, name: LookupName, id: number): Promise<Record<string, unknown>> {
  const json = await lookupReaders()[name].get(id);
  if (!json) throw new NotFound();
  ensureSuperuser(actor);
  return json as Record<string, unknown>;
}

export const LOOKUP_NAMES = ["stationtypes", "eventtypes", "variables", "filetypes", "organizations", "persons", "units", "gareas"] as const;
export type LookupName = (typeof LOOKUP_NAMES)[number];
