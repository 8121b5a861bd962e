import { randomBytes } from "node:crypto";
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { db } from "@/lib/db";
import { issueToken } from "@/lib/auth/tokens";
import { records } from "@/lib/records";
import { mediaDirectory } from "@/lib/stations/media";
import { descrNorm, gareaNorm, organizationNorm, personNorm } from "@/lib/domain/norms";
import { insertGroup, insertSeries, type GroupData, type SeriesData } from "@/lib/series/writes";
import { insertStation, type StationData } from "@/lib/stations/writes";
import { typeCode, type TimeseriesTypeName } from "@/lib/domain/timeseries-types";
import { createUser } from "@/lib/accounts/users";

/** Test data made with the service's own write functions, in the database of the test server. */
let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}_${process.pid}`;

export interface TestUser {
  id: number;
  username: string;
  password: string;
  token: string;
}

export async function user(options: { username?: string; password?: string; email?: string; superuser?: boolean; canAddStations?: boolean; active?: boolean } = {}): Promise<TestUser> {
  const username = options.username ?? unique("user");
  const password = options.password ?? "correct-horse-battery";
  const id = await createUser({
    username, password, email: options.email ?? `${username}@example.com`,
    isSuperuser: options.superuser, canAddStations: options.canAddStations, isActive: options.active,
  });
  const token = await issueToken(id);
  return { id, username, password, token };
}

export async function organization(name = unique("Org "), acronym = ""): Promise<number> {
  return (await db().write((tx) => tx.lentity.create({
    data: { kind: "organization", organization: { create: { name, acronym, lastModified: new Date(), searchNorm: organizationNorm({ name, acronym }) } } },
  }))).id;
}

export async function person(firstName: string, lastName: string): Promise<number> {
  return (await db().write((tx) => tx.lentity.create({
    data: { kind: "person", person: { create: { firstName, lastName, lastModified: new Date(), searchNorm: personNorm({ firstName, lastName }) } } },
  }))).id;
}

export async function stationType(descr = unique("Type ")): Promise<number> {
  return (await db().write((tx) => tx.stationType.create({ data: { descr, descrNorm: descrNorm(descr), lastModified: new Date() } }))).id;
}

export async function eventType(descr = unique("Event type ")): Promise<number> {
  return (await db().write((tx) => tx.eventType.create({ data: { descr, lastModified: new Date() } }))).id;
}

export async function variable(descr = unique("Variable ")): Promise<number> {
  return (await db().write((tx) => tx.variable.create({ data: { descr, descrNorm: descrNorm(descr), lastModified: new Date() } }))).id;
}

export async function unit(symbol = unique("u"), variables: number[] = [], descr = ""): Promise<number> {
  return (await db().write((tx) => tx.unitOfMeasurement.create({
    data: { symbol, descr, lastModified: new Date(), variables: { create: variables.map((variableId) => ({ variableId })) } },
  }))).id;
}

export async function garea(name: string, code: string, bbox: [number, number, number, number]): Promise<number> {
  const [x0, y0, x1, y1] = bbox;
  return db().write(async (tx) => {
    const g = await tx.gentity.create({ data: { kind: "garea" } });
    await tx.garea.create({
      data: {
        id: g.id, name, code, lastModified: new Date(), searchNorm: gareaNorm({ name, code }),
        geom: `SRID=4326;POLYGON ((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))`,
        minLon: x0, minLat: y0, maxLon: x1, maxLat: y1,
      },
    });
    return g.id;
  });
}

export async function station(data: Partial<StationData> = {}, creatorId: number | null = null): Promise<number> {
  const ownerId = data.ownerId ?? (await organization());
  return insertStation({
    name: unique("Station "), code: "", remarks: "", originalSrid: 4326, altitude: null, lon: 21.06071, lat: 39.09518,
    displayTimezone: "Etc/GMT-2", startDate: null, endDate: null, overseer: "", maintainers: [], stype: [], dataViewers: [],
    ...data, ownerId,
  }, creatorId);
}

export async function group(stationId: number, data: Partial<GroupData> = {}): Promise<number> {
  const variableId = data.variableId ?? (await variable());
  const unitId = data.unitId ?? (await unit());
  return db().write((tx) => insertGroup(tx, stationId, { name: "", hidden: false, precision: 2, remarks: "", ...data, variableId, unitId }));
}

/** A station for a telemetry to feed: its maintainer (an editor), two groups A and B, and the telemetry's API path. */
export async function telemetryStation() {
  const editor = await user();
  const sid = await station({ maintainers: [editor.id] });
  const a = await group(sid, { name: "A", precision: 1 });
  const b = await group(sid, { name: "B", precision: 1 });
  return { editor, sid, a, b, path: `/api/stations/${sid}/telemetry/` };
}

export async function series(groupId: number, data: Partial<Omit<SeriesData, "type">> & { type?: TimeseriesTypeName } = {}): Promise<number> {
  const { type = "Initial", ...rest } = data;
  return db().write((tx) => insertSeries(tx, groupId, { timeStep: "", name: "", publiclyAvailable: true, ...rest, type: typeCode(type) }));
}

/** Stores records given as [ISO instant, value, flags] (appended). */
export async function addRecords(seriesId: number, rows: [string, number | null, string?][]): Promise<void> {
  const sorted = [...rows].sort((a, b) => Date.parse(a[0]) - Date.parse(b[0]));
  const result = await records().write(seriesId, {
    timestamps: Float64Array.from(sorted, (r) => Date.parse(r[0]) / 1000),
    values: Float64Array.from(sorted, (r) => (r[1] === null ? NaN : r[1])),
    flags: sorted.map((r) => r[2] ?? ""),
  }, { mode: "insert", validate: () => [] });
  if (!result.ok) throw new Error(result.errors.join("\n"));
}

export async function event(stationId: number, data: { date: string; user?: string; report?: string; typeId?: number }): Promise<number> {
  const typeId = data.typeId ?? (await eventType());
  return (await db().write((tx) => tx.event.create({
    data: { stationId, date: data.date, user: data.user ?? "", report: data.report ?? "", typeId, lastModified: new Date() },
  }))).id;
}

/** A station file or image whose bytes are stored in the media directory. */
export async function attachment(kind: "files" | "images", stationId: number, data: { fileName: string; bytes?: Buffer | string; descr?: string; date?: string | null; featured?: boolean }): Promise<number> {
  let storedName = "";
  if (data.bytes !== undefined) {
    mkdirSync(mediaDirectory(), { recursive: true });
    storedName = `${randomBytes(16).toString("hex")}.bin`;
    writeFileSync(join(mediaDirectory(), storedName), data.bytes);
  }
  const common = { stationId, fileName: data.fileName, storedName, descr: data.descr ?? "", date: data.date ?? null, lastModified: new Date() };
  return kind === "files"
    ? (await db().write((tx) => tx.gentityFile.create({ data: common }))).id
    : (await db().write((tx) => tx.gentityImage.create({ data: { ...common, featured: data.featured ?? false } }))).id;
}

export interface WorkedExample {
  variableId: number;
  unitId: number;
  stationId: number;
  groupId: number;
  seriesId: number;
  /** The series' path under /api/, without the trailing slash. */
  path: string;
}

/**
 * The fixtures of formats.md §0: station Komboti (display zone Etc/GMT-2), a
 * temperature group of precision 2 and its Initial series with four records, one null and two
 * flagged.
 */
export async function workedExample(stationData: Partial<StationData> = {}): Promise<WorkedExample> {
  const variableId = await variable("Temperature");
  const unitId = await unit("°C", [variableId]);
  const stationId = await station({ name: "Komboti", lon: 21.06071, lat: 39.09518, altitude: 219, displayTimezone: "Etc/GMT-2", ...stationData });
  const groupId = await group(stationId, { name: "", precision: 2, remarks: "Line1\nLine2", variableId, unitId });
  const seriesId = await series(groupId, { type: "Initial", timeStep: "10min", publiclyAvailable: true });
  await addRecords(seriesId, [
    ["2018-12-09T11:10:00Z", 20.456],
    ["2018-12-09T11:20:00Z", null, "MISS"],
    ["2018-12-09T11:30:00Z", 21, "FLAG1 FLAG2"],
    ["2018-12-31T22:00:00Z", -3.125],
  ]);
  return { variableId, unitId, stationId, groupId, seriesId, path: `/api/stations/${stationId}/timeseriesgroups/${groupId}/timeseries/${seriesId}` };
}

/** The records a store holds for these series (their days' counts: rows or day blocks alike). */
export async function storedRecordCount(...seriesIds: number[]): Promise<number> {
  const { _sum } = await db().prisma.timeseriesBlock.aggregate({ _sum: { count: true }, where: { timeseriesId: { in: seriesIds } } });
  return _sum.count ?? 0;
}
