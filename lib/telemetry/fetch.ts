/**
 * What a fetch does (telemetry.md §3): one session with the vendor; for each mapped sensor, the
 * readings after the last record of its group's Initial series (created if missing), converted
 * to records (lib/telemetry/readings.ts) and appended in one transaction through the records
 * store, with what an upload's write carries (the "series-written" change that queues processing
 * and alarm evaluations, and an activity entry) and the sensor's log row. Each sensor is its own
 * transaction: a sensor that fails stores nothing and logs the vendor's words; the others go on.
 * An append is refused when the series' last record moved since it was read (another write came
 * first): the records are then filtered again, so that nothing is ever stored twice.
 *
 * A fetch holds one of ENHYDRIS_TELEMETRY_CONCURRENCY slots, so a vendor that does not answer
 * must not hold it long: when a request gets no answer at all (a timeout, a connection refused
 * or reset, a name that does not resolve, a TLS failure), or the fetch's time (SESSION_TIMEOUTS
 * request timeouts) is up, the remaining sensors are not tried; each gets a log row saying why
 * (error_name NOT_FETCHED). The sensors are tried in the order of their last attempt, the longest
 * ago first (a sensor not fetched was not attempted), so that the sensors a fetch did not reach,
 * or that come after one whose requests always time out, go first the next time.
 */
import { unseal } from "@/lib/auth/secret-box";
import { settings } from "@/lib/config";
import { db, Prisma } from "@/lib/db";
import { now } from "@/lib/db/dialect-sql";
import { activitySql, named } from "@/lib/domain/activity-log";
import { isoMillis } from "@/lib/domain/serialize";
import { typeCode } from "@/lib/domain/timeseries-types";
import { resolveTimeZone, type TimeZone } from "@/lib/formats/timezone";
import { changeStatements } from "@/lib/jobs/registry";
import { logError } from "@/lib/observability/log";
import { concatBatches, records, type RecordBatch } from "@/lib/records";
import { insertSeries } from "@/lib/series";
import { contentsText } from "@/lib/stations";
import { driverConfig } from "@/lib/telemetry/config";
import { RequestBudget, secondsText } from "@/lib/telemetry/budget";
import { withSession, type DriverContext, type TelemetrySession } from "@/lib/telemetry/driver";
import { redact, TelemetryError } from "@/lib/telemetry/errors";
import { readingsToRecords } from "@/lib/telemetry/readings";
import { loadTelemetry, PASSWORD_LABEL, storedValues, type StoredTelemetry } from "@/lib/telemetry/telemetries";
import { telemetryType } from "@/lib/telemetry/types";

/** Rounds of readingsAfter per sensor in one fetch (a vendor that pages in windows, catching up). */
const MAX_ROUNDS = 20;
/** A sensor's records gathered in one fetch, at most; the next fetch goes on from there. */
const MAX_RECORDS = 500_000;
/** A sensor whose last reading is this close to now is caught up: no further round is asked. */
const CAUGHT_UP_SECONDS = 86_400;
/** Appends tried again after another write moved the series' last record. */
const APPEND_TRIES = 3;

export interface SensorOutcome {
  sensor_id: string;
  timeseries_group: number;
  records: number;
  status: "ok" | "error";
  message: string;
}

/** What a fetch did: the answer of `fetch/` and the result of its job. */
export interface FetchSummary {
  status: "ok" | "error";
  started: string;
  finished: string;
  records: number;
  /** Why the whole fetch failed (connecting, the stored password), or "". */
  message: string;
  sensors: SensorOutcome[];
}

/**
 * A fetch's or a discovery's requests together may take this many request timeouts
 * (ENHYDRIS_TELEMETRY_TIMEOUT): 180 s by default, well within the job timeout (600 s), and room
 * for the few requests that may each take long (a login, a sensor catching up on years).
 */
export const SESSION_TIMEOUTS = 3;

/**
 * The settings' limits for a driver's requests, and the budget of the session (a fetch, or a
 * discovery: SESSION_TIMEOUTS request timeouts; a discovery's answers together, the upload limit).
 */
export function driverContext(signal?: AbortSignal, what: "fetch" | "discovery" = "fetch"): DriverContext {
  const s = settings();
  const timeoutMs = s.telemetryTimeoutSeconds * 1000;
  const budget = new RequestBudget(what, SESSION_TIMEOUTS * timeoutMs, what === "discovery" ? s.maxUploadSize : Infinity);
  return { allow: s.outboundAllow, timeoutMs, maxBytes: s.maxUploadSize, signal, budget };
}

/** One line of the log, as the SQL that inserts it (in a records write's transaction, or alone). */
function logSql(telemetryId: number, started: Date, row: { status: "ok" | "error"; records: number; sensor: string | null; errorName?: string; message?: string }): Prisma.Sql {
  return Prisma.sql`INSERT INTO telemetry_log (telemetry_id, started, finished, status, records, sensor, error_name, message)
    VALUES (${telemetryId}, ${started}, ${now(db().dialect)}, ${row.status}, ${row.records}, ${row.sensor}, ${row.errorName ?? ""}, ${(row.message ?? "").slice(0, 2000)})`;
}

async function log(telemetryId: number, started: Date, row: Parameters<typeof logSql>[2]): Promise<void> {
  await db().write((tx) => tx.$executeRaw(logSql(telemetryId, started, row)));
}

/** The group's Initial series (the first, when a group has several), created when it has none. */
export async function initialSeries(groupId: number): Promise<number> {
  const initial = typeCode("Initial");
  const found = await db().prisma.timeseries.findFirst({ where: { groupId, type: initial }, orderBy: { id: "asc" }, select: { id: true } });
  if (found) return found.id;
  const id = await db().write(async (tx) => {
    const again = await tx.timeseries.findFirst({ where: { groupId, type: initial }, orderBy: { id: "asc" }, select: { id: true } });
    if (again) return again.id;
    const created = await insertSeries(tx, groupId, { type: initial, timeStep: "", name: "", publiclyAvailable: settings().defaultPubliclyAvailable });
    for (const sql of changeStatements({ kind: "group-series-changed", groupIds: [groupId] })) await tx.$executeRaw(sql);
    return created;
  });
  return id;
}


/** The records after `last` (and after its minute), as readingsToRecords keeps them. */
function after(batch: RecordBatch, last: number | null): RecordBatch {
  if (last === null) return batch;
  const lastMinute = Math.floor(last / 60);
  let k = 0;
  while (k < batch.timestamps.length && (batch.timestamps[k] <= last || Math.floor(batch.timestamps[k] / 60) === lastMinute)) k++;
  return k === 0 ? batch : { timestamps: batch.timestamps.subarray(k), values: batch.values.subarray(k), flags: batch.flags.slice(k) };
}

/**
 * The sensor's new records: readingsAfter the series' last record, again after each batch's last
 * record while the vendor gives more and the sensor is behind (a vendor that answers in windows),
 * within MAX_ROUNDS and MAX_RECORDS.
 */
async function newRecords(session: TelemetrySession, sensorId: string, zone: TimeZone, lastStored: number | null, nowSeconds: number): Promise<RecordBatch> {
  const batches: RecordBatch[] = [];
  let cursor = lastStored;
  let total = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const batch = await session.readingsAfter(sensorId, cursor);
    if (batch.readings.length === 0) break;
    const { records: converted } = readingsToRecords(batch, zone, cursor);
    const n = converted.timestamps.length;
    if (n === 0) break;
    batches.push(converted);
    total += n;
    cursor = converted.timestamps[n - 1];
    if (total >= MAX_RECORDS || cursor >= nowSeconds - CAUGHT_UP_SECONDS) break;
  }
  return batches.length ? concatBatches(batches) : { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] };
}

interface SensorContext {
  telemetry: StoredTelemetry;
  stationName: string;
  session: TelemetrySession;
  zone: TimeZone;
  started: Date;
  nowSeconds: number;
}

/** Whether a row still exists; a failure of the database counts as yes (the caller's error stands). */
async function stillThere(find: () => Promise<unknown>): Promise<boolean> {
  try {
    return (await find()) !== null;
  } catch {
    return true;
  }
}

const telemetryExists = (id: number) => stillThere(() => db().prisma.telemetry.findUnique({ where: { id }, select: { id: true } }));
const groupExists = (id: number) => stillThere(() => db().prisma.timeseriesGroup.findUnique({ where: { id }, select: { id: true } }));
const seriesExists = (id: number) => stillThere(() => db().prisma.timeseries.findUnique({ where: { id }, select: { id: true } }));

/** The error_name of a sensor's log row when its group (or the group's Initial series) was deleted during the fetch. */
const GROUP_DELETED = "GroupDeleted";
/** The error_name of a sensor's log row when the fetch did not try it (the vendor did not answer, or the fetch's time was up). */
export const NOT_FETCHED = "NotFetched";

/** A sensor's outcome, and the error that ends the fetch (TelemetryError.stop) when its request got one. */
type Fetched = { outcome: SensorOutcome; stop: TelemetryError | null };

/**
 * Fetches and stores one sensor; a vendor's failure (TelemetryError) is its outcome, and so is
 * its group (or the group's Initial series) deleted during the fetch: its log row says so, and
 * the other sensors go on. Anything else is thrown.
 */
async function fetchSensor(c: SensorContext, sensorId: string, groupId: number): Promise<Fetched> {
  const outcome = (records: number, status: "ok" | "error", message = ""): SensorOutcome => ({ sensor_id: sensorId, timeseries_group: groupId, records, status, message });
  const gone = async (message: string): Promise<Fetched> => {
    await log(c.telemetry.id, c.started, { status: "error", records: 0, sensor: sensorId, errorName: GROUP_DELETED, message });
    return { outcome: outcome(0, "error", message), stop: null };
  };
  const groupGone = `time series group ${groupId} no longer exists (it was deleted during the fetch): nothing was stored for this sensor`;
  if (!(await groupExists(groupId))) return gone(groupGone);
  const series: { id: number | null } = { id: null };
  try {
    return await storeSensor(c, sensorId, groupId, series, outcome);
  } catch (error) {
    if (error instanceof TelemetryError) throw error;
    // A deleted group takes its series and the sensor's mapping with it: the write could not
    // find them (or the new Initial series could not refer to the group).
    if (!(await groupExists(groupId))) return gone(groupGone);
    if (series.id !== null && !(await seriesExists(series.id))) {
      return gone(`the Initial time series #${series.id} of time series group ${groupId} no longer exists (it was deleted during the fetch): nothing was stored for this sensor; the next fetch creates it again`);
    }
    throw error;
  }
}

async function storeSensor(c: SensorContext, sensorId: string, groupId: number, series: { id: number | null },
  outcome: (records: number, status: "ok" | "error", message?: string) => SensorOutcome): Promise<Fetched> {
  const seriesId = await initialSeries(groupId);
  series.id = seriesId;
  let lastStored = (await records().summary(seriesId))?.last ?? null;
  let batch: RecordBatch;
  try {
    batch = await newRecords(c.session, sensorId, c.zone, lastStored, c.nowSeconds);
  } catch (error) {
    if (!(error instanceof TelemetryError)) throw error;
    await log(c.telemetry.id, c.started, { status: "error", records: 0, sensor: sensorId, errorName: error.name, message: error.message });
    return { outcome: outcome(0, "error", error.message), stop: error.stop ? error : null };
  }
  const group = await db().prisma.timeseriesGroup.findUnique({ where: { id: groupId }, select: { name: true } });
  for (let attempt = 0; attempt < APPEND_TRIES; attempt++) {
    const n = batch.timestamps.length;
    if (n === 0) {
      await log(c.telemetry.id, c.started, { status: "ok", records: 0, sensor: sensorId, message: "no new readings" });
      return { outcome: outcome(0, "ok"), stop: null };
    }
    const expected = lastStored;
    const result = await records().write(seriesId, batch, {
      mode: "append",
      validate: ({ lastStored: stored }) => (stored === expected ? [] : ["the series' last record moved"]),
      also: [
        ...changeStatements({ kind: "series-written", seriesId, first: batch.timestamps[0] }),
        activitySql(null, {
          action: "fetch", objectType: "timeseries", objectId: seriesId, stationId: c.telemetry.stationId,
          summary: `Telemetry fetched ${contentsText({ records: n })} of sensor "${sensorId}" into time series #${seriesId} of time series group ${named(group?.name, groupId)} of station ${c.stationName}`,
        }),
        logSql(c.telemetry.id, c.started, { status: "ok", records: n, sensor: sensorId }),
      ],
    });
    if (result.ok) return { outcome: outcome(n, "ok"), stop: null };
    // Another write came first: keep only what is after its last record.
    lastStored = (await records().summary(seriesId))?.last ?? null;
    batch = after(batch, lastStored);
  }
  throw new Error(`time series ${seriesId}: other writes kept moving its last record`);
}

/**
 * The words of the log row of a sensor the fetch did not try, after `stop`: the error of an
 * earlier request of the fetch, or the fetch's time (`budget`) being up.
 */
function notFetchedMessage(stop: TelemetryError, budget: RequestBudget | undefined): string {
  return stop.stop === "time"
    ? `not fetched: the fetch reached its time limit${budget ? ` of ${secondsText(budget.ms)}` : ""} before this sensor; the next fetch tries it first`
    : `not fetched: the vendor did not answer earlier in this fetch (${stop.message}), so it was not asked again; the next fetch tries this sensor first`;
}

/** Logs a sensor that the fetch did not try. */
async function skipSensor(c: SensorContext, sensorId: string, groupId: number, message: string): Promise<SensorOutcome> {
  await log(c.telemetry.id, c.started, { status: "error", records: 0, sensor: sensorId, errorName: NOT_FETCHED, message });
  return { sensor_id: sensorId, timeseries_group: groupId, records: 0, status: "error", message };
}

/**
 * The sensors in the order a fetch tries them: by their last attempt (their last log row that is
 * not NOT_FETCHED), the longest ago first, those never attempted before all; the mapping's order
 * among equals.
 */
async function fetchOrder<S extends { sensor_id: string }>(telemetryId: number, sensors: readonly S[]): Promise<S[]> {
  const rows = await db().query<{ sensor: unknown; last: unknown }>(Prisma.sql`SELECT sensor, MAX(id) AS last FROM telemetry_log
    WHERE telemetry_id = ${telemetryId} AND sensor IS NOT NULL AND error_name <> ${NOT_FETCHED} GROUP BY sensor`);
  const last = new Map(rows.map((r) => [String(r.sensor), Number(r.last)]));
  return [...sensors].sort((a, b) => (last.get(a.sensor_id) ?? 0) - (last.get(b.sensor_id) ?? 0));
}

/** The station's name as activity summaries give it. */
async function stationName(stationId: number): Promise<string> {
  const s = await db().prisma.station.findUnique({ where: { id: stationId }, select: { name: true } });
  return named(s?.name, stationId);
}

export interface FetchOptions {
  signal?: AbortSignal;
  /** Called before each sensor and at the end: sensors done, sensors in all. */
  onProgress?: (done: number, total: number) => void;
  /** The driver context (default: the settings'); for tests and the benchmark. */
  context?: DriverContext;
}

/**
 * Fetches a telemetry now (the job's work, `npm run telemetry`): every sensor, then the
 * telemetry's status. Null when the telemetry no longer exists. Throws only for the service's
 * own failures (the database), after logging them: the job is then tried again.
 */
export async function fetchTelemetry(telemetryId: number, options: FetchOptions = {}): Promise<FetchSummary | null> {
  const row = await db().prisma.telemetry.findUnique({ where: { id: telemetryId }, select: { stationId: true } });
  const telemetry = row ? await loadTelemetry(row.stationId) : null;
  if (!telemetry) return null;
  const started = new Date();
  const outcomes: SensorOutcome[] = [];
  let failure: { name: string; message: string } | null = null;
  let password = "";
  const total = telemetry.sensors.length;
  options.onProgress?.(0, total);
  try {
    const type = telemetryType(telemetry.type);
    const zone = resolveTimeZone(telemetry.dataTimezone);
    if (!type) throw new TelemetryError(`the telemetry type "${telemetry.type}" is not known to this version of the service`);
    if (!zone) throw new TelemetryError(`"${telemetry.dataTimezone}" is not a valid time zone`);
    if (total === 0) throw new TelemetryError("no sensor is mapped to a time series group: nothing to fetch");
    password = unseal(PASSWORD_LABEL, telemetry.password);
    const values = storedValues(telemetry, { openPassword: false });
    const config = driverConfig({ ...values, password });
    const name = await stationName(telemetry.stationId);
    const sensors = await fetchOrder(telemetry.id, telemetry.sensors);
    const context = options.context ?? driverContext(options.signal);
    await withSession(type, config, context, async (session) => {
      const c: SensorContext = { telemetry, stationName: name, session, zone, started, nowSeconds: Math.floor(Date.now() / 1000) };
      // Once set, the remaining sensors are not tried.
      let stop: TelemetryError | null = null;
      for (const [i, s] of sensors.entries()) {
        options.signal?.throwIfAborted();
        if (stop === null && context.budget && context.budget.remainingMs() <= 0) stop = context.budget.timeUp();
        if (stop !== null) {
          outcomes.push(await skipSensor(c, s.sensor_id, s.timeseries_group, notFetchedMessage(stop, context.budget)));
        } else {
          const fetched = await fetchSensor(c, s.sensor_id, s.timeseries_group);
          outcomes.push(fetched.outcome);
          stop = fetched.stop;
        }
        options.onProgress?.(i + 1, total);
      }
    });
  } catch (error) {
    // The telemetry was deleted during the fetch (its log went with it, and writing a sensor's
    // log row failed): the fetch ends quietly, with nothing to log and nothing to try again.
    if (!(await telemetryExists(telemetry.id))) return null;
    const e = error as Error;
    // Nothing of the password in the log, whatever failed (the drivers' errors are redacted already).
    failure = { name: e instanceof TelemetryError ? e.name : e?.name || "Error", message: redact(e?.message ?? String(error), [password]) };
    const own = !(error instanceof TelemetryError) && e?.name !== "SecretBoxError";
    // The service's own failure is in the server's log (the job's); the telemetry's log, which
    // its editors read, says it in words.
    const shown = own ? "the service could not store the fetch (an error of its own, not of the vendor); it is tried again" : failure.message;
    const logged = await log(telemetry.id, started, { status: "error", records: 0, sensor: null, errorName: own ? "Error" : failure.name, message: shown }).then(
      () => "logged" as const,
      async (problem: unknown) => {
        if (!(await telemetryExists(telemetry.id))) return "deleted" as const;
        logError(`telemetry ${telemetry.id}: logging a failed fetch`, problem);
        return "failed" as const;
      });
    if (logged === "deleted") return null;
    if (own) {
      await finish(telemetry.id, "error").catch(() => undefined);
      throw error;
    }
  }
  const status = failure || outcomes.some((o) => o.status === "error") ? "error" : "ok";
  const finished = await finish(telemetry.id, status);
  return {
    status,
    started: isoMillis(started)!,
    finished: isoMillis(finished)!,
    records: outcomes.reduce((sum, o) => sum + o.records, 0),
    message: failure?.message ?? "",
    sensors: outcomes,
  };
}

/** Records how the fetch ended; when. */
async function finish(telemetryId: number, status: "ok" | "error"): Promise<Date> {
  const at = new Date();
  await db().write((tx) => tx.telemetry.updateMany({ where: { id: telemetryId }, data: { lastFetch: at, status } }));
  return at;
}
