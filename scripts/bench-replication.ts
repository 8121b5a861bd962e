// The replication workloads of `npm run bench` (replication.md §3): a source instance (the built
// server on a database of its own) and targets written by this process, as `npm run replicate`
// writes them.
import { join } from "node:path";
import { reloadSettings } from "@/lib/config";
import { closeDb, db } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { records } from "@/lib/records";
import { replicate } from "@/lib/replication";
import { searchColumn } from "@/lib/formats/search-normalize";
import { startServer } from "./support";

export const MIRROR_STATIONS = 1_000;
const MIRROR_RECORDS = 144;
const BIG_RECORDS = 1_051_200;
const START = Date.UTC(2005, 0, 1) / 1000;

export interface ReplicationTimes {
  /** Seconds to copy the station with the series of 1,051,200 records. */
  big: number;
  /** Seconds to copy 1,000 stations, each with a group and a series (metadata and their few records). */
  metadata: number;
  /** Seconds of a second run over those 1,000 series with nothing new. */
  incremental: number;
}

export async function pointAt(databaseUrl: string): Promise<void> {
  await closeDb();
  await migrate(parseDatabaseUrl(databaseUrl));
  process.env.DATABASE_URL = databaseUrl;
  reloadSettings();
}

/** The source's data: 1,000 "Mirror" stations with a 144-record series each, and "Bench big" with 1,051,200 records. */
export async function generateSource(): Promise<void> {
  const now = new Date();
  await db().write(async (tx) => {
    await tx.lentity.create({ data: { kind: "organization", organization: { create: { name: "Water authority", acronym: "WA", searchNorm: searchColumn("Water authority", "WA"), lastModified: now } } } });
    await tx.variable.create({ data: { descr: "Temperature", descrNorm: "temperature", lastModified: now } });
    await tx.unitOfMeasurement.create({ data: { symbol: "°C", lastModified: now } });
  });
  const ids = Array.from({ length: MIRROR_STATIONS + 1 }, (_, k) => k + 1);
  await db().write(async (tx) => {
    await tx.gentity.createMany({ data: ids.map((id) => ({ id, kind: "station" })) });
    await tx.station.createMany({
      data: ids.map((id) => {
        const name = id > MIRROR_STATIONS ? "Bench big" : `Mirror ${id}`;
        return { id, name, code: `M${id}`, lon: 20 + id / 1000, lat: 39, displayTimezone: "Etc/GMT-2", ownerId: 1, lastModified: now, originalSrid: 4326, searchNorm: searchColumn(name, `M${id}`, "") };
      }),
    });
    await tx.timeseriesGroup.createMany({ data: ids.map((id) => ({ id, stationId: id, name: "Temperature", precision: 1, variableId: 1, unitId: 1, lastModified: now })) });
    await tx.timeseries.createMany({ data: ids.map((id) => ({ id, groupId: id, type: 1, timeStep: "10min", lastModified: now })) });
  });
  const batch = (n: number) => ({
    timestamps: Float64Array.from({ length: n }, (_, i) => START + i * 600),
    values: Float64Array.from({ length: n }, (_, i) => Math.round((15 + 10 * Math.sin(i / 4000) + ((i * 7919) % 100) / 100) * 10) / 10),
    flags: Array.from({ length: n }, () => ""),
  });
  const small = batch(MIRROR_RECORDS);
  for (const id of ids.slice(0, MIRROR_STATIONS)) await records().write(id, small, { mode: "append", validate: () => [] });
  await records().write(MIRROR_STATIONS + 1, batch(BIG_RECORDS), { mode: "append", validate: () => [] });
  if (db().dialect === "postgres") {
    for (const table of ["gentity", "timeseries_group", "timeseries"]) await db().prisma.$executeRawUnsafe(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), ${MIRROR_STATIONS + 1})`);
  }
}

async function timedRun(sourceUrl: string, query: string): Promise<number> {
  const t = performance.now();
  const report = await replicate({ sourceId: 1, url: sourceUrl, query, credentials: {} });
  if (report.warnings.length) throw new Error(`replication bench: ${report.warnings.join("; ")}`);
  return (performance.now() - t) / 1000;
}

export async function newSourceRow(): Promise<void> {
  await db().write((tx) => tx.replicationSource.create({ data: { id: 1, name: "bench", url: "", lastModified: new Date() } }));
}

/** `database(name)` gives the URL of a new, empty database of the dialect measured. */
export async function replicationBench(dir: string, database: (name: string) => Promise<string>): Promise<ReplicationTimes> {
  const sourceDb = await database("source");
  await pointAt(sourceDb);
  await generateSource();
  await closeDb();
  const { url, child } = await startServer(sourceDb, join(dir, "replication-source"));
  try {
    await pointAt(await database("target_big"));
    await newSourceRow();
    const big = await timedRun(url, "bench big");
    await pointAt(await database("target_mirror"));
    await newSourceRow();
    const metadata = await timedRun(url, "mirror");
    const incremental = await timedRun(url, "mirror");
    await closeDb();
    return { big, metadata, incremental };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}
