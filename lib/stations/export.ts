import { Readable } from "node:stream";
import { ZipArchive } from "archiver";
import { db, Prisma } from "@/lib/db";
import { csvRow } from "@/lib/formats/csv";
import { plainNumber } from "@/lib/formats/number";
import { makeTimestampFormatter } from "@/lib/formats/timestamp";
import { isoMillis, isoSeconds } from "@/lib/domain/serialize";
import { stationZone } from "@/lib/formats/timezone";
import { lastUpdates } from "@/lib/stations/stations";
import type { StationQuery } from "@/lib/stations/query";
import { orderedStationIds } from "@/lib/stations/list";
import { typeName } from "@/lib/domain/timeseries-types";

/**
 * The station export of api.md §4.7: data.zip with stations.csv and timeseries.csv, written
 * batch by batch while the zip streams out, so memory stays bounded.
 */
const BATCH = 500;

const STATION_HEADER = ["id", "Name", "Short name", "Owner", "Type", "Start date", "End date", "Longitude", "Latitude", "Altitude",
  "Original SRID", "Display timezone", "Overseer", "Remarks", "Last update", "Last modified"];
const SERIES_HEADER = ["id", "Station", "Station name", "Time series group", "Group name", "Variable", "Unit", "Precision", "Type",
  "Time step", "Name", "Publicly available", "Start date", "End date", "Number of records", "Remarks"];

interface StationRow {
  id: number; name: string; code: string; start_date: string | null; end_date: string | null; lon: number; lat: number; altitude: number | null;
  original_srid: number | null; display_timezone: string; overseer: string; remarks: string; last_modified: Date | null;
  organization_id: number | null; organization_name: string | null; acronym: string | null; person_id: number | null; first_name: string | null; last_name: string | null;
}

function ownerName(r: StationRow): string {
  if (r.organization_id !== null) return r.organization_name || r.acronym || "";
  return r.person_id !== null ? `${r.last_name} ${r.first_name}`.trim() : "";
}

/** A coordinate or altitude as the CSV writes it; empty when not finite (only written into the database directly). */
function coordinate(x: number): string | null {
  return Number.isFinite(x) ? plainNumber(x) : null;
}

function batches(ids: number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < ids.length; i += BATCH) out.push(ids.slice(i, i + BATCH));
  return out;
}

/** Each batch is read with native queries (no Prisma model objects), written out, and let go. */
async function* stationsCsv(ids: number[]): AsyncGenerator<string> {
  yield csvRow(STATION_HEADER);
  for (const batch of batches(ids)) {
    const within = Prisma.join(batch);
    const [rows, stypes, updates] = await Promise.all([
      db().query<StationRow>(Prisma.sql`
        SELECT s.id, s.name, s.code, s.start_date, s.end_date, s.lon, s.lat, s.altitude, s.original_srid, s.display_timezone, s.overseer, s.remarks,
          s.last_modified, o.id AS organization_id, o.name AS organization_name, o.acronym, p.id AS person_id, p.first_name, p.last_name
        FROM station s LEFT JOIN organization o ON o.id = s.owner_id LEFT JOIN person p ON p.id = s.owner_id
        WHERE s.id IN (${within})`),
      db().query<{ station_id: number; descr: string }>(Prisma.sql`
        SELECT ss.station_id, st.descr FROM station_stype ss JOIN station_type st ON st.id = ss.station_type_id
        WHERE ss.station_id IN (${within})`),
      lastUpdates(batch),
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const typesOf = new Map<number, string[]>();
    for (const t of stypes) {
      const list = typesOf.get(t.station_id);
      if (list) list.push(t.descr);
      else typesOf.set(t.station_id, [t.descr]);
    }
    let chunk = "";
    for (const id of batch) {
      const s = byId.get(id);
      if (!s) continue;
      const types = (typesOf.get(id) ?? []).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(", ");
      chunk += csvRow([s.id, s.name, s.code, ownerName(s), types, s.start_date, s.end_date, coordinate(s.lon), coordinate(s.lat),
        s.altitude === null ? null : coordinate(s.altitude), s.original_srid, s.display_timezone, s.overseer, s.remarks,
        isoSeconds(updates.get(id) ?? null), isoMillis(s.last_modified)]);
    }
    yield chunk;
  }
}

interface SeriesRow {
  id: number; station_id: number; station_name: string; display_timezone: string; group_id: number; group_name: string; variable: string; unit: string;
  precision: number | null; type: number; time_step: string; name: string; publicly_available: boolean; first_timestamp: number | null; last_timestamp: number | null;
  record_count: number; remarks: string;
}

async function* timeseriesCsv(ids: number[]): AsyncGenerator<string> {
  yield csvRow(SERIES_HEADER);
  for (const batch of batches(ids)) {
    const series = await db().query<SeriesRow>(Prisma.sql`
      SELECT t.id, s.id AS station_id, s.name AS station_name, s.display_timezone, g.id AS group_id, g.name AS group_name, v.descr AS variable,
        u.symbol AS unit, g.precision, t.type, t.time_step, t.name, t.publicly_available, t.first_timestamp, t.last_timestamp, t.record_count, g.remarks
      FROM timeseries t JOIN timeseries_group g ON g.id = t.timeseries_group_id JOIN station s ON s.id = g.station_id
        JOIN variable v ON v.id = g.variable_id JOIN unit_of_measurement u ON u.id = g.unit_id
      WHERE g.station_id IN (${Prisma.join(batch)})
      ORDER BY g.name, t.timeseries_group_id, t.type, t.id`);
    const position = new Map(batch.map((id, i) => [id, i]));
    series.sort((a, b) => position.get(a.station_id)! - position.get(b.station_id)!);
    let chunk = "";
    for (const t of series) {
      const format = makeTimestampFormatter(stationZone(t.display_timezone));
      const when = (epoch: number | null) => (epoch === null ? null : format(Number(epoch)));
      chunk += csvRow([t.id, t.station_id, t.station_name, t.group_id, t.group_name, t.variable, t.unit, t.precision, typeName(t.type),
        t.time_step, t.name, t.publicly_available, when(t.first_timestamp), when(t.last_timestamp), t.record_count, t.remarks]);
    }
    yield chunk;
  }
}

/**
 * The zip as a stream. A failure while it is written (a query, a row) errors the stream, which
 * ends the response's connection: the zip's head has gone out by then, and a client must see
 * the download fail, not wait for the rest (archiver itself does not watch its entries' errors).
 */
export function stationExportZip(query: StationQuery): ReadableStream<Uint8Array> {
  const zip = new ZipArchive({ zlib: { level: 6 } });
  const fail = (error: unknown) => {
    if (zip.destroyed) return;
    console.error("station export failed:", error);
    zip.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  const ids = orderedStationIds(query.filter, query.sort);
  const lazy = (make: (ids: number[]) => AsyncGenerator<string>) =>
    Readable.from((async function* () {
      yield* make(await ids);
    })()).on("error", fail);
  // Not awaited until an entry needs it: a failure before then must not be an unhandled rejection.
  ids.catch(() => undefined);
  zip.on("error", fail);
  zip.append(lazy(stationsCsv), { name: "stations.csv" });
  // archiver starts reading every appended entry at once: timeseries.csv is appended once
  // stations.csv is written, so that its queries run then, not beside the first file's.
  zip.once("entry", () => {
    zip.append(lazy(timeseriesCsv), { name: "timeseries.csv" });
    void zip.finalize().catch(fail);
  });
  return Readable.toWeb(zip) as ReadableStream<Uint8Array>;
}
