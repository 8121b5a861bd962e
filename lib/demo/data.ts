import { db, type Tx } from "@/lib/db";
import { parsePointGeom, parseAreaGeom } from "@/lib/geo/wkt";
import { records } from "@/lib/records";
import { descrNorm, gareaNorm, organizationNorm, personNorm } from "@/lib/domain/norms";
import { insertGroup, insertSeries } from "@/lib/series";
import { insertStation } from "@/lib/stations";
import { typeCode } from "@/lib/domain/timeseries-types";

/**
 * Demo data for a new installation: a handful of stations in Greece with owners, lookups,
 * groups, time series of every type and a year (2025, local time UTC+2) of 10-minute records.
 * Deterministic, so that the same data is loaded everywhere.
 */
const YEAR_START = Date.UTC(2024, 11, 31, 22) / 1000; // 2025-01-01T00:00+02:00
const TEN_MINUTES = 600;
const STEPS = 365 * 144;

/** A small deterministic generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Generator = (i: number, rnd: () => number) => number | null;

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
const dayOfYear = (i: number) => i / 144;
const hourOfDay = (i: number) => (i % 144) / 6;

const temperature = (base: number): Generator => (i, rnd) =>
  round(base + 9 * Math.cos((2 * Math.PI * (dayOfYear(i) - 200)) / 365) + 5 * Math.sin((2 * Math.PI * (hourOfDay(i) - 9)) / 24) + (rnd() - 0.5), 1);
const humidity: Generator = (i, rnd) =>
  round(Math.min(100, Math.max(15, 62 - 10 * Math.cos((2 * Math.PI * (dayOfYear(i) - 200)) / 365) - 12 * Math.sin((2 * Math.PI * (hourOfDay(i) - 9)) / 24) + 6 * (rnd() - 0.5))), 0);
const precipitation = (): Generator => {
  let storm = 0;
  return (i, rnd) => {
    if (storm > 0) storm--;
    else if (rnd() < 0.002) storm = 6 + Math.floor(rnd() * 30);
    return storm > 0 ? round(rnd() * 1.2, 1) : 0;
  };
};
const windDirection = (): Generator => {
  let d = 200;
  return (_i, rnd) => {
    d = (d + (rnd() - 0.5) * 40 + 360) % 360;
    return round(d, 0);
  };
};

function series(generate: Generator, seed: number, step = TEN_MINUTES, count = STEPS) {
  const rnd = random(seed);
  const timestamps = new Float64Array(count);
  const values = new Float64Array(count);
  const flags: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    timestamps[i] = YEAR_START + i * step;
    const missing = rnd() < 0.0005;
    const v = generate(i, rnd);
    values[i] = missing || v === null ? NaN : v;
    flags[i] = missing ? "MISS" : "";
  }
  return { timestamps, values, flags };
}

/** Daily means (in local days) of a 10-minute series. */
function dailyMeans(source: ReturnType<typeof series>) {
  const days = Math.floor(source.timestamps.length / 144);
  const timestamps = new Float64Array(days);
  const values = new Float64Array(days);
  const flags: string[] = new Array(days).fill("");
  for (let d = 0; d < days; d++) {
    let sum = 0;
    let n = 0;
    for (let k = d * 144; k < (d + 1) * 144; k++) {
      const v = source.values[k];
      if (v === v) { sum += v; n++; }
    }
    timestamps[d] = YEAR_START + d * 86400;
    values[d] = n ? round(sum / n, 2) : NaN;
  }
  return { timestamps, values, flags };
}

async function lookups(tx: Tx) {
  const now = new Date();
  const org = async (name: string, acronym: string) => (await tx.lentity.create({
    data: { kind: "organization", organization: { create: { name, acronym, lastModified: now, searchNorm: organizationNorm({ name, acronym }) } } },
  })).id;
  const person = async (firstName: string, lastName: string, initials: string) => (await tx.lentity.create({
    data: { kind: "person", person: { create: { firstName, lastName, initials, lastModified: now, searchNorm: personNorm({ firstName, lastName }) } } },
  })).id;
  // Each translatable lookup in English and Greek (public.md §3).
  const stationType = async (descr: string, descrEl: string) => (await tx.stationType.create({ data: { descr, descrEl, descrNorm: descrNorm(descr), lastModified: now } })).id;
  const variable = async (descr: string, descrEl: string) => (await tx.variable.create({ data: { descr, descrEl, descrNorm: descrNorm(descr), lastModified: now } })).id;
  const unit = async (descr: string, symbol: string, variableIds: number[]) => (await tx.unitOfMeasurement.create({
    data: { descr, symbol, lastModified: now, variables: { create: variableIds.map((variableId) => ({ variableId })) } },
  })).id;

  const ntua = await org("National Technical University of Athens", "NTUA");
  const hnms = await org("Hellenic National Meteorological Service", "HNMS");
  const ppc = await org("", "PPC");
  const christofides = await person("Antonis", "Christofides", "A. C.");

  const meteorological = await stationType("Meteorological", "Μετεωρολογικός");
  const hydrometric = await stationType("Stream gauge", "Σταθμήμετρο ποταμού");
  const rainGauge = await stationType("Rain gauge", "Βροχόμετρο");

  const temp = await variable("Temperature", "Θερμοκρασία");
  const rh = await variable("Relative humidity", "Σχετική υγρασία");
  const rain = await variable("Precipitation", "Βροχόπτωση");
  const windDir = await variable("Wind direction", "Διεύθυνση ανέμου");
  const level = await variable("Water level", "Στάθμη νερού");
  const celsius = await unit("Degrees Celsius", "°C", [temp]);
  const percent = await unit("Percent", "%", [rh]);
  const mm = await unit("Millimetres", "mm", [rain]);
  const degrees = await unit("Degrees", "°", [windDir]);
  const metres = await unit("Metres", "m", [level]);

  for (const [descr, descrEl] of [["Sensor replacement", "Αντικατάσταση αισθητήρα"], ["Maintenance", "Συντήρηση"], ["Calibration", "Βαθμονόμηση"]]) {
    await tx.eventType.create({ data: { descr, descrEl, lastModified: now } });
  }
  await tx.fileType.create({ data: { descr: "PDF document", descrEl: "Έγγραφο PDF", mimeType: "application/pdf", lastModified: now } });
  await tx.fileType.create({ data: { descr: "Text", descrEl: "Κείμενο", mimeType: "text/plain", lastModified: now } });

  for (const [name, code, wkt] of [
    ["Epirus", "GR-D", "POLYGON ((19.9 38.9, 21.4 38.9, 21.4 40.2, 19.9 40.2, 19.9 38.9))"],
    ["Thessaly", "GR-E", "POLYGON ((21.3 38.8, 23.4 38.8, 23.4 40.0, 21.3 40.0, 21.3 38.8))"],
    ["Attica", "GR-I", "MULTIPOLYGON (((23.3 37.6, 24.1 37.6, 24.1 38.4, 23.3 38.4, 23.3 37.6)))"],
  ] as const) {
    const area = parseAreaGeom(wkt);
    if (!area.ok) throw new Error(area.message);
    const gentity = await tx.gentity.create({ data: { kind: "garea" } });
    await tx.garea.create({
      data: {
        id: gentity.id, name, code, geom: area.ewkt, lastModified: now, searchNorm: gareaNorm({ name, code }),
        minLon: area.bbox[0], minLat: area.bbox[1], maxLon: area.bbox[2], maxLat: area.bbox[3],
      },
    });
  }
  return { ntua, hnms, ppc, christofides, meteorological, hydrometric, rainGauge, temp, rh, rain, windDir, level, celsius, percent, mm, degrees, metres };
}

function point(wkt: string) {
  const p = parsePointGeom(wkt);
  if (!p.ok) throw new Error(p.message);
  return { lon: p.lon, lat: p.lat, originalSrid: p.srid };
}

export async function loadDemoData(): Promise<void> {
  const l = await db().write(lookups);
  const station = (name: string, code: string, wkt: string, extra: Partial<Parameters<typeof insertStation>[0]>) =>
    insertStation({
      name, code, remarks: "", altitude: null, displayTimezone: "Etc/GMT-2", startDate: null, endDate: null,
      ownerId: l.ntua, overseer: "", maintainers: [], stype: [l.meteorological], dataViewers: [], ...point(wkt), ...extra,
    }, null);

  const komboti = await station("Komboti", "KMB", "POINT (21.06071 39.09518)", {
    remarks: "Near Arta", altitude: 219, startDate: "2010-01-01", overseer: "Bilbo", originalSrid: 2100 });
  const arta = await station("Arta", "ART", "POINT (20.98526 39.16017)", { altitude: 15, ownerId: l.christofides, stype: [] });
  const ioannina = await station("Ioannina", "IOA", "POINT (20.8225 39.6965)", { altitude: 484, ownerId: l.hnms, startDate: "1956-01-01" });
  const larisa = await station("Larisa", "LAR", "POINT (22.4182 39.6502)", { altitude: 74, ownerId: l.hnms });
  const zografou = await station("Athens (Zografou)", "ZOG", "POINT (23.7874 37.9739)", {
    altitude: 210, remarks: "On the roof of the Hydraulics laboratory, NTUA campus" });
  const agios = await station("Ágios Dimítrios", "AGD", "POINT (21.6403 38.8161)", {
    ownerId: l.ppc, stype: [l.hydrometric, l.rainGauge], remarks: "Stream gauge on the Achelóos river" });

  const now = new Date();
  const group = async (stationId: number, variableId: number, unitId: number, name: string, precision: number, remarks = "") =>
    db().write((tx) => insertGroup(tx, stationId, { name, hidden: false, precision, remarks, variableId, unitId }));
  const addSeries = async (groupId: number, type: "Initial" | "Checked" | "Regularized" | "Aggregated", timeStep: string,
    data: ReturnType<typeof series>, options: { name?: string; publiclyAvailable?: boolean } = {}) => {
    const id = await db().write((tx) => insertSeries(tx, groupId, {
      type: typeCode(type), timeStep, name: options.name ?? "", publiclyAvailable: options.publiclyAvailable ?? true,
    }));
    const result = await records().write(id, data, { mode: "append", validate: () => [] });
    if (!result.ok) throw new Error(result.errors.join("; "));
    return id;
  };

  const kombotiTemp = await group(komboti, l.temp, l.celsius, "Air temperature", 1, "Thermometer in a Stevenson screen\nHeight 2 m");
  const raw = series(temperature(16), 1);
  await addSeries(kombotiTemp, "Initial", "10min", raw);
  await addSeries(kombotiTemp, "Checked", "10min", series(temperature(16), 1));
  await addSeries(kombotiTemp, "Regularized", "10min", series(temperature(16), 1));
  await addSeries(kombotiTemp, "Aggregated", "D", dailyMeans(raw), { name: "Daily mean" });
  await addSeries(await group(komboti, l.rh, l.percent, "Relative humidity", 0), "Initial", "10min", series(humidity, 2));
  await addSeries(await group(komboti, l.windDir, l.degrees, "Wind direction", 0), "Initial", "10min", series(windDirection(), 3));
  await addSeries(await group(arta, l.temp, l.celsius, "Air temperature", 1), "Initial", "10min", series(temperature(17), 4));
  await addSeries(await group(arta, l.rain, l.mm, "Rainfall", 1), "Initial", "10min", series(precipitation(), 5));
  await addSeries(await group(ioannina, l.temp, l.celsius, "Air temperature", 1, "Data under licence: private"),
    "Initial", "10min", series(temperature(13), 6), { publiclyAvailable: false });
  await addSeries(await group(larisa, l.temp, l.celsius, "Air temperature", 1), "Initial", "10min", series(temperature(17.5), 7));
  await addSeries(await group(zografou, l.temp, l.celsius, "Air temperature", 1), "Initial", "10min", series(temperature(18.5), 8));
  await addSeries(await group(zografou, l.rain, l.mm, "Rainfall", 1), "Initial", "10min", series(precipitation(), 9));
  await group(agios, l.level, l.metres, "Water level", 2, "Staff gauge readings, not yet digitized");

  const maintenance = await db().prisma.eventType.findFirstOrThrow({ where: { descr: "Maintenance" } });
  await db().write(async (tx) => {
    await tx.event.create({ data: { stationId: komboti, date: "2025-03-14", user: "Bilbo", report: "Cleaned the rain gauge funnel", typeId: maintenance.id, lastModified: now } });
    await tx.event.create({ data: { stationId: komboti, date: "2025-09-02", user: "Bilbo", report: "Replaced the datalogger battery", typeId: maintenance.id, lastModified: now } });
  });
}

/** Loads the demo data when the database has no stations and no owners (users do not count). */
export async function loadDemoDataIfEmpty(): Promise<boolean> {
  const [stations, lentities] = await Promise.all([db().prisma.station.count(), db().prisma.lentity.count()]);
  if (stations > 0 || lentities > 0) return false;
  await loadDemoData();
  return true;
}
