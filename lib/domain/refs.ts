import { db } from "@/lib/db";

/** Ids are 32-bit integer columns: another number names no object (and must not reach PostgreSQL). */
export function isDatabaseId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647;
}

/** Existence checks for references in request bodies (lib/http/fields.ts pk/pkList). */
type Model = "user" | "lentity" | "stationType" | "variable" | "unitOfMeasurement" | "eventType" | "station" | "timeseriesGroup";

export function existing(model: Model): (ids: number[]) => Promise<Set<number>> {
  return async (ids) => {
    ids = ids.filter(isDatabaseId);
    if (ids.length === 0) return new Set();
    const where = { id: { in: ids } };
    const p = db().prisma;
    const rows: { id: number }[] = await (model === "user" ? p.user.findMany({ where, select: { id: true } })
      : model === "lentity" ? p.lentity.findMany({ where, select: { id: true } })
      : model === "stationType" ? p.stationType.findMany({ where, select: { id: true } })
      : model === "variable" ? p.variable.findMany({ where, select: { id: true } })
      : model === "unitOfMeasurement" ? p.unitOfMeasurement.findMany({ where, select: { id: true } })
      : model === "eventType" ? p.eventType.findMany({ where, select: { id: true } })
      : model === "timeseriesGroup" ? p.timeseriesGroup.findMany({ where, select: { id: true } })
      : p.station.findMany({ where, select: { id: true } }));
    return new Set(rows.map((r) => r.id));
  };
}
