import { db, Prisma } from "@/lib/db";
import { seriesOfGroups, targetOf } from "@/lib/processing/series";
import { PROCESS_COLUMNS, processFromRow, type ProcessRow } from "@/lib/processing/state";

/**
 * The processes whose runs write a time series (its group's checks or aggregations, or a curve
 * interpolation of another group into it): what is uploaded into it by hand is replaced at their
 * next run, which the upload page warns about.
 */
export async function processesWriting(seriesId: number, groupId: number): Promise<{ process: ProcessRow; stationId: number }[]> {
  return (await processesWritingGroup(groupId)).get(seriesId) ?? [];
}

/** processesWriting for every series of the group, by series id (the group page offers no upload into those). */
export async function processesWritingGroup(groupId: number): Promise<Map<number, { process: ProcessRow; stationId: number }[]>> {
  const out = new Map<number, { process: ProcessRow; stationId: number }[]>();
  const rows = await db().query<Record<string, unknown>>(Prisma.sql`
    SELECT ${PROCESS_COLUMNS}, g.station_id FROM process p JOIN timeseries_group g ON g.id = p.timeseries_group_id
    WHERE p.timeseries_group_id = ${groupId} OR p.target_group_id = ${groupId} ORDER BY p.id`);
  if (rows.length === 0) return out;
  const processes = rows.map((r) => ({ process: processFromRow(r), stationId: Number(r.station_id) }));
  const series = await seriesOfGroups([groupId, ...processes.map((p) => p.process.groupId)]);
  for (const writer of processes) {
    const target = targetOf(writer.process.groupId, writer.process.definition, series);
    if (target) out.set(target.id, [...(out.get(target.id) ?? []), writer]);
  }
  return out;
}
