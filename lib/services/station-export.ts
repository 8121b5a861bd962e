import { Readable } from "node:stream";
import { ZipArchive } from "archiver";
import { db } from "@/lib/db";
import { csvRow } from "@/lib/formats/csv";
import { plainNumber } from "@/lib/formats/number";
import { makeTimestampFormatter } from "@/lib/formats/timestamp";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { isoMillis, isoSeconds } from "@/lib/services/serialize";
import { lastUpdates } from "@/lib/services/stations";
import type { StationQuery } from "@/lib/services/station-query";
import { orderedStationIds } from "@/lib/services/station-list";
import { typeName } from "@/lib/services/timeseries-types";

/**
 * The station export of api.md §4.7: data.zip with stations.csv and timeseries.csv, written
 * batch by batch while the zip streams out, so memory stays bounded.
 */
const BATCH = 500;

const STATION_HEADER = ["id", "Name", "Short name", "Owner", "Type", "Start date", "End date", "Longitude", "Latitude", "Altitude",
  "Original SRID", "Display timezone", "Overseer", "Remarks", "Last update", "Last modified"];
const SERIES_HEADER = ["id", "Station", "Station name", "Time series group", "Group name", "Variable", "Unit", "Precision", "Type",
  "Time step", "Name", "Publicly available", "Start date", "End date", "Number of records", "Remarks"];

function ownerName(owner: { organization: { name: string; acronym: string } | null; person: { firstName: string; lastName: string } | null }): string {
  if (owner.organization) return owner.organization.name || owner.organization.acronym;
  return owner.person ? `${owner.person.lastName} ${owner.person.firstName}`.trim() : "";
}

function batches(ids: number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < ids.length; i += BATCH) out.push(ids.slice(i, i + BATCH));
  return out;
}

async function* stationsCsv(ids: number[]): AsyncGenerator<string> {
  yield csvRow(STATION_HEADER);
  for (const batch of batches(ids)) {
    const [rows, updates] = await Promise.all([
      db().prisma.station.findMany({
        where: { id: { in: batch } },
        include: {
          owner: { include: { organization: true, person: true } },
          stypes: { include: { stationType: { select: { descr: true } } } },
        },
      }),
      lastUpdates(batch),
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    let chunk = "";
    for (const id of batch) {
      const s = byId.get(id);
      if (!s) continue;
      const types = s.stypes.map((t) => t.stationType.descr).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(", ");
      chunk += csvRow([s.id, s.name, s.code, ownerName(s.owner), types, s.startDate, s.endDate, plainNumber(s.lon), plainNumber(s.lat),
        s.altitude === null ? null : plainNumber(s.altitude), s.originalSrid, s.displayTimezone, s.overseer, s.remarks,
        isoSeconds(updates.get(id) ?? null), isoMillis(s.lastModified)]);
    }
    yield chunk;
  }
}

async function* timeseriesCsv(ids: number[]): AsyncGenerator<string> {
  yield csvRow(SERIES_HEADER);
  for (const batch of batches(ids)) {
    const series = await db().prisma.timeseries.findMany({
      where: { group: { stationId: { in: batch } } },
      include: {
        group: {
          include: {
            station: { select: { id: true, name: true, displayTimezone: true } },
            variable: { select: { descr: true } },
            unit: { select: { symbol: true } },
          },
        },
      },
      orderBy: [{ group: { name: "asc" } }, { groupId: "asc" }, { type: "asc" }, { id: "asc" }],
    });
    const position = new Map(batch.map((id, i) => [id, i]));
    series.sort((a, b) => position.get(a.group.stationId)! - position.get(b.group.stationId)!);
    let chunk = "";
    for (const t of series) {
      const g = t.group;
      const format = makeTimestampFormatter(resolveTimeZone(g.station.displayTimezone)!);
      const when = (epoch: bigint | null) => (epoch === null ? null : format(Number(epoch)));
      chunk += csvRow([t.id, g.station.id, g.station.name, g.id, g.name, g.variable.descr, g.unit.symbol, g.precision, typeName(t.type),
        t.timeStep, t.name, t.publiclyAvailable, when(t.firstTimestamp), when(t.lastTimestamp), t.recordCount, g.remarks]);
    }
    yield chunk;
  }
}

export function stationExportZip(query: StationQuery): ReadableStream<Uint8Array> {
  const zip = new ZipArchive({ zlib: { level: 6 } });
  const ids = orderedStationIds(query.filter, query.sort);
  const lazy = (make: (ids: number[]) => AsyncGenerator<string>) =>
    Readable.from((async function* () {
      yield* make(await ids);
    })());
  zip.append(lazy(stationsCsv), { name: "stations.csv" });
  zip.append(lazy(timeseriesCsv), { name: "timeseries.csv" });
  void zip.finalize().catch((error: unknown) => console.error("station export failed:", error));
  return Readable.toWeb(zip) as ReadableStream<Uint8Array>;
}
