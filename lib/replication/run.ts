/**
 * One replication run (replication.md §2): the stations of another instance that match the
 * source's query, with their groups, series, files, images and events, copied or brought up to
 * date here, then their records copied incrementally. docs/decisions/0014-replication.md.
 *
 * - Each station's metadata is written in one transaction, with its id map rows; each series
 *   whose records changed at the source (its last_modified moved) is compared with the source's
 *   records, and its new records appended, or its records from the first that differs replaced,
 *   in one transaction whose `also` moves the series' records mark (corrections.md §2).
 *   A run killed at any point leaves whole stations and whole series; the next run continues.
 * - Nothing is written before the source's answer for it was read whole and checked: a source
 *   that fails fails the run with its message and no partial series.
 */
import { createHash } from "node:crypto";
import { settings } from "@/lib/config";
import { db, Prisma, type Tx } from "@/lib/db";
import { formatValue } from "@/lib/formats/value";
import { parsePointGeom } from "@/lib/geo/wkt";
import { discard, DISPLAY_TIMEZONES, insertStationRow, mediaPath, sanitizeFileName, storeContent } from "@/lib/stations";
import { changeStatements } from "@/lib/jobs/registry";
import { records, RecordsOverlap } from "@/lib/records";
import type { RecordBatch, RecordChunk } from "@/lib/records/types";
import { isObject, Remote, SourceError, type Credentials, type Json } from "@/lib/replication/remote";
import { insertLookup } from "@/lib/lookups";
import type { LookupName } from "@/lib/lookups";
import { remarksNorm, stationNorm } from "@/lib/domain/norms";
import { writeExactFloats } from "@/lib/db/dialect-sql";
import { TIMESERIES_TYPES, typeCode } from "@/lib/domain/timeseries-types";
import { rm } from "node:fs/promises";

export interface RunOptions {
  readonly sourceId: number;
  /** The source's site root (normalizeSourceUrl). */
  readonly url: string;
  readonly query: string;
  readonly credentials: Credentials;
  /** Read and compare everything, write nothing. */
  readonly dryRun?: boolean;
  /** Delete here what was deleted at the source. */
  readonly prune?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: RunProgress) => void;
}

export interface RunProgress {
  readonly phase: "objects" | "records";
  /** Stations (objects phase) or series (records phase) done, of total. */
  readonly done: number;
  readonly total: number;
  /** Records copied so far, and the number expected when the source tells it. */
  readonly records: number;
  readonly recordsExpected: number | null;
}

export interface RunReport {
  created: number;
  updated: number;
  unchanged: number;
  /** Objects deleted at the source (deleted here too with prune). */
  deleted: number;
  records: number;
  /** Series copied again from their first record that changed at the source (changed, inserted or deleted before their last copied one). */
  recopied: number;
  warnings: string[];
  dry_run: boolean;
}

type Kind = "station" | "group" | "series" | "file" | "image" | "event";
type LookupKind = "organization" | "person" | "variable" | "unit" | "stationtype" | "eventtype";

interface MapRow {
  kind: string;
  remoteId: number;
  localId: number;
  parent: number | null;
  fingerprint: string;
  recordsMark: string | null;
}

/** What a run does with one remote object. */
interface Planned {
  kind: Kind;
  remote: Json;
  remoteId: number;
  localId: number | null;
  print: string;
  change: "create" | "update" | "same";
}

/** A series to bring up to date in the records phase. */
interface SeriesWork {
  remote: Json;
  dataPath: string;
  localId: number | null;
  precision: number;
  mark: string | null;
  label: string;
  /** Compared with the source even when its records mark says that its records did not change (its group changed: the precision may have). */
  verify: boolean;
}

const STATION_CONCURRENCY = 8;
/** Above this many stations (or for the whole source) the legacy model lists are read instead of each station's lists. */
const BULK_FROM_STATIONS = 20;
const RECORDS_CONCURRENCY = 2;
const WARNINGS_KEPT = 100;

const key = (kind: string, remoteId: number) => `${kind}:${remoteId}`;

/** A digest of a remote object without the fields that change on their own (record times). */
function fingerprint(object: Json, volatile: readonly string[] = []): string {
  const copy: Json = { ...object };
  for (const name of volatile) delete copy[name];
  return createHash("sha256").update(JSON.stringify(copy)).digest("base64url").slice(0, 22);
}

const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const bool = (v: unknown, fallback: boolean): boolean => (typeof v === "boolean" ? v : fallback);
const dateOrNull = (v: unknown): string | null => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null);

/** A variable's descr: `descr` here, `translations` at the reference system (the English one first). */
export function variableDescr(v: Json): string {
  if (typeof v.descr === "string") return v.descr;
  const translations = v.translations;
  if (isObject(translations)) {
    const preferred = translations.en ?? Object.values(translations)[0];
    if (isObject(preferred) && typeof preferred.descr === "string") return preferred.descr;
  }
  return "";
}

const LOOKUP_PATHS: Record<LookupKind, LookupName> = {
  organization: "organizations", person: "persons", variable: "variables", unit: "units", stationtype: "stationtypes", eventtype: "eventtypes",
};

/** The natural key a lookup is matched by (replication.md §2 item 1). */
function naturalKey(kind: LookupKind, o: Json): string {
  switch (kind) {
    case "organization": return str(o.name) !== "" ? `name:${str(o.name)}` : `acronym:${str(o.acronym)}`;
    case "person": return `${str(o.last_name)}\u0000${str(o.first_name)}`;
    case "variable": return variableDescr(o);
    case "unit": return str(o.symbol);
    default: return str(o.descr);
  }
}

/** Local lookups by natural key, and the source's lookups by id, each read once per run. */
class Lookups {
  private readonly remoteLists = new Map<LookupKind, Promise<Map<number, Json>>>();
  private readonly localIndex = new Map<LookupKind, Promise<{ byKey: Map<string, number>; ids: Set<number> }>>();
  private readonly resolving = new Map<string, Promise<number | null>>();

  constructor(private readonly run: Run) {}

  /**
   * The source's list of a lookup kind. The first one asked for starts the others too: a
   * station being written needs most of them, and then they come in one round trip, not one
   * after another (a failure is the failure of the one that is used).
   */
  private remote(kind: LookupKind): Promise<Map<number, Json>> {
    if (this.remoteLists.size === 0) {
      for (const k of Object.keys(LOOKUP_PATHS) as LookupKind[]) {
        const list = this.run.remote.list(`${LOOKUP_PATHS[k]}/`).then((items) => new Map(items.map((o) => [o.id as number, o])));
        list.catch(() => undefined);
        this.remoteLists.set(k, list);
      }
    }
    return this.remoteLists.get(kind)!;
  }

  private local(kind: LookupKind): Promise<{ byKey: Map<string, number>; ids: Set<number> }> {
    let index = this.localIndex.get(kind);
    if (!index) {
      index = loadLocal(kind).then((rows) => {
        const byKey = new Map<string, number>();
        for (const [k, id] of rows) if (!byKey.has(k)) byKey.set(k, id);
        return { byKey, ids: new Set(rows.map(([, id]) => id)) };
      });
      this.localIndex.set(kind, index);
    }
    return index;
  }

  /** The owner: an organization or a person of the source (they share ids there too). */
  async owner(remoteId: number): Promise<number | null> {
    if ((await this.remote("organization")).has(remoteId)) return this.resolve("organization", remoteId);
    if ((await this.remote("person")).has(remoteId)) return this.resolve("person", remoteId);
    throw new SourceError(`the owner ${remoteId} of a station is neither an organization nor a person at the source`);
  }

  /**
   * The local id of a remote lookup: the mapped one while it exists, else the local object
   * with its natural key, else a new one (null in a dry run).
   */
  resolve(kind: LookupKind, remoteId: number): Promise<number | null> {
    const k = key(kind, remoteId);
    let pending = this.resolving.get(k);
    if (!pending) {
      pending = this.find(kind, remoteId);
      this.resolving.set(k, pending);
    }
    return pending;
  }

  private async find(kind: LookupKind, remoteId: number): Promise<number | null> {
    const local = await this.local(kind);
    const mapped = this.run.map.get(key(kind, remoteId));
    if (mapped && local.ids.has(mapped.localId)) return mapped.localId;
    const object = (await this.remote(kind)).get(remoteId);
    if (!object) throw new SourceError(`the ${kind} ${remoteId} that a station refers to is not in the source's ${LOOKUP_PATHS[kind]}/`);
    const natural = naturalKey(kind, object);
    let id = local.byKey.get(natural) ?? null;
    if (id === null) {
      if (this.run.dryRun) {
        this.run.report.created++;
        return null;
      }
      const values = await this.values(kind, object);
      id = await db().write((tx) => insertLookup(tx, LOOKUP_PATHS[kind], values));
      local.byKey.set(natural, id);
      local.ids.add(id);
      this.run.report.created++;
    }
    if (!this.run.dryRun) await this.run.saveMap([{ kind, remoteId, localId: id, parent: null, fingerprint: "", recordsMark: null }]);
    return id;
  }

  private async values(kind: LookupKind, o: Json): Promise<Record<string, unknown>> {
    switch (kind) {
      case "organization": return { remarks: str(o.remarks), name: str(o.name), acronym: str(o.acronym) };
      case "person": return { remarks: str(o.remarks), last_name: str(o.last_name), first_name: str(o.first_name), middle_names: str(o.middle_names), initials: str(o.initials) };
      case "variable": return { descr: variableDescr(o) };
      case "unit": {
        const variables: number[] = [];
        for (const v of Array.isArray(o.variables) ? o.variables : []) {
          const remoteVariable = int(v) ?? int(isObject(v) ? v.id : null);
          if (remoteVariable === null) continue;
          const local = await this.resolve("variable", remoteVariable).catch(() => null);
          if (local !== null) variables.push(local);
        }
        return { descr: str(o.descr), symbol: str(o.symbol) || "?", variables: [...new Set(variables)] };
      }
      default: return { descr: str(o.descr) };
    }
  }
}

async function loadLocal(kind: LookupKind): Promise<[string, number][]> {
  const p = db().prisma;
  switch (kind) {
    case "organization": return (await p.organization.findMany({ orderBy: { id: "asc" } })).map((o) => [naturalKey(kind, o as unknown as Json), o.id]);
    case "person": return (await p.person.findMany({ orderBy: { id: "asc" } })).map((o) => [naturalKey(kind, { last_name: o.lastName, first_name: o.firstName }), o.id]);
    case "variable": return (await p.variable.findMany({ orderBy: { id: "asc" } })).map((o) => [o.descr, o.id]);
    case "unit": return (await p.unitOfMeasurement.findMany({ orderBy: { id: "asc" } })).map((o) => [o.symbol, o.id]);
    case "stationtype": return (await p.stationType.findMany({ orderBy: { id: "asc" } })).map((o) => [o.descr, o.id]);
    case "eventtype": return (await p.eventType.findMany({ orderBy: { id: "asc" } })).map((o) => [o.descr, o.id]);
  }
}

/**
 * What a source that serves the legacy model lists (this service does) gives in a few requests
 * instead of several per station: every group, file and event (current shapes), and every
 * series in the older shape, whose last_modified (the later of the series' and its group's)
 * moves whenever the series or its records change.
 */
interface Bulk {
  groups: Map<number, Json[]>;
  files: Map<number, Json[]>;
  events: Map<number, Json[]>;
  /** Older-shape series by their group. */
  series: Map<number, Json[]>;
}

function byKey(items: Json[], field: string): Map<number, Json[]> {
  const out = new Map<number, Json[]>();
  for (const item of items) {
    const k = int(item[field]);
    if (k === null) continue;
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(item);
  }
  return out;
}

/** An attachment's bytes fetched before its station's transaction. */
interface Fetched {
  fileName: string;
  storedName: string;
}

class Run {
  readonly remote: Remote;
  readonly report: RunReport;
  readonly dryRun: boolean;
  map = new Map<string, MapRow>();
  private readonly lookups: Lookups;
  private readonly seen = new Map<string, Set<number>>();
  /** Remote stations whose children were read this run (their missing children were deleted there). */
  private readonly walked = new Set<number>();
  private readonly work: SeriesWork[] = [];
  /** Whether the source moves a series' last_modified when its records change (this service does). */
  private tracksRecordChanges = false;
  private counts: Promise<Map<number, number> | null> | undefined;
  private bulk: Bulk | null = null;
  private recordsCopied = 0;

  constructor(readonly options: RunOptions) {
    this.remote = new Remote(options.url, options.credentials, settings().replicationTimeoutSeconds * 1000);
    this.dryRun = options.dryRun ?? false;
    this.report = { created: 0, updated: 0, unchanged: 0, deleted: 0, records: 0, recopied: 0, warnings: [], dry_run: this.dryRun };
    this.lookups = new Lookups(this);
  }

  warn(message: string): void {
    if (this.report.warnings.length < WARNINGS_KEPT) this.report.warnings.push(message);
    else if (this.report.warnings.length === WARNINGS_KEPT) this.report.warnings.push("… (more warnings left out)");
  }

  private checkAborted(): void {
    if (this.options.signal?.aborted) throw new SourceError("the run was stopped");
  }

  private mark(kind: string, remoteId: number): void {
    let set = this.seen.get(kind);
    if (!set) this.seen.set(kind, (set = new Set()));
    set.add(remoteId);
  }

  async execute(): Promise<RunReport> {
    await this.loadMap();
    await this.loadExisting();
    await this.remote.open();
    try {
      const stations = await this.remote.list(`stations/${this.options.query ? `?q=${encodeURIComponent(this.options.query)}` : ""}`);
      this.tracksRecordChanges = stations.length > 0 && stations.every((s) => "stype" in s);
      // The lists of every object of the source pay off when the run reads much of it, not for a few stations of a large source.
      if (this.tracksRecordChanges && (this.options.query === "" || stations.length > BULK_FROM_STATIONS)) await this.readBulk();
      let done = 0;
      const progress = () => this.options.onProgress?.({ phase: "objects", done, total: stations.length, records: 0, recordsExpected: null });
      progress();
      await pool(stations, STATION_CONCURRENCY, async (station) => {
        this.checkAborted();
        await this.copyStation(station);
        done++;
        progress();
      });
      await this.copyRecords();
      await this.reportDeleted();
      return this.report;
    } finally {
      await this.remote.close();
    }
  }

  private async readBulk(): Promise<void> {
    const [groups, files, events, series] = await Promise.all(["TimeseriesGroup", "GentityFile", "GentityEvent", "Timeseries"].map((m) => this.remote.modelList(m)));
    if (!groups || !files || !events || !series) return;
    this.bulk = { groups: byKey(groups, "gentity"), files: byKey(files, "gentity"), events: byKey(events, "gentity"), series: byKey(series, "timeseries_group") };
  }

  /**
   * Whether a group's series are all as last copied, records included: the group is as copied
   * (a changed precision changes what data/ writes), and each series is mapped, exists here, and
   * its older-shape last_modified is the later of the one its records were copied at and the
   * group's. Then its list need not be read.
   */
  private seriesAsCopied(group: Json, olderShapes: Json[]): boolean {
    if (this.map.get(key("group", group.id as number))?.fingerprint !== fingerprint(group)) return false;
    const groupModified = str(group.last_modified);
    return olderShapes.every((o) => {
      const row = this.map.get(key("series", o.id as number));
      if (!row || row.recordsMark === null || this.existingLocal("series", row.remoteId) === null) return false;
      const later = row.recordsMark > groupModified ? row.recordsMark : groupModified;
      return str(o.last_modified) === later;
    });
  }

  private async loadMap(): Promise<void> {
    const rows = await db().query<{ kind: string; remote_id: number; local_id: number; parent: number | null; fingerprint: string; records_mark: string | null }>(
      Prisma.sql`SELECT kind, remote_id, local_id, parent, fingerprint, records_mark FROM replication_map WHERE source_id = ${this.options.sourceId}`);
    this.map = new Map(rows.map((r) => [key(r.kind, Number(r.remote_id)), {
      kind: r.kind, remoteId: Number(r.remote_id), localId: Number(r.local_id), parent: r.parent === null ? null : Number(r.parent),
      fingerprint: r.fingerprint, recordsMark: r.records_mark,
    }]));
  }

  /** Writes id map rows (a series' records mark is kept while its local id stays). */
  async saveMap(rows: MapRow[], tx?: Tx): Promise<void> {
    for (const row of rows) this.map.set(key(row.kind, row.remoteId), { ...row, recordsMark: this.map.get(key(row.kind, row.remoteId))?.localId === row.localId ? this.map.get(key(row.kind, row.remoteId))!.recordsMark : null });
    if (rows.length === 0) return;
    const values = rows.map((r) => Prisma.sql`(${this.options.sourceId}, ${r.kind}, ${r.remoteId}, ${r.localId}, ${r.parent}, ${r.fingerprint}, NULL)`);
    const statement = Prisma.sql`INSERT INTO replication_map (source_id, kind, remote_id, local_id, parent, fingerprint, records_mark)
      VALUES ${Prisma.join(values)}
      ON CONFLICT (source_id, kind, remote_id) DO UPDATE SET parent = excluded.parent, fingerprint = excluded.fingerprint,
        records_mark = CASE WHEN replication_map.local_id = excluded.local_id THEN replication_map.records_mark ELSE NULL END,
        local_id = excluded.local_id`;
    if (tx) await tx.$executeRaw(statement);
    else await db().write((t) => t.$executeRaw(statement));
  }

  private recordsMarkSql(remoteId: number, mark: string | null): Prisma.Sql {
    return Prisma.sql`UPDATE replication_map SET records_mark = ${mark} WHERE source_id = ${this.options.sourceId} AND kind = 'series' AND remote_id = ${remoteId}`;
  }

  /** The local ids that exist of each kind, and the stations replicated from this source (read once per run). */
  private existing = new Map<Kind, Set<number>>();
  private replicas = new Set<number>();

  private async loadExisting(): Promise<void> {
    const ids = async (table: string) => new Set((await db().query<{ id: number }>(Prisma.sql`SELECT id FROM ${Prisma.raw(table)}`)).map((r) => Number(r.id)));
    const mapped = (kind: Kind) => [...this.map.values()].filter((r) => r.kind === kind).length > 0;
    const tables: [Kind, string][] = [["station", "station"], ["group", "timeseries_group"], ["series", "timeseries"], ["file", "gentity_file"], ["image", "gentity_image"], ["event", "gentity_event"]];
    for (const [kind, table] of tables) this.existing.set(kind, mapped(kind) ? await ids(table) : new Set());
    this.replicas = new Set((await db().query<{ id: number }>(Prisma.sql`SELECT id FROM station WHERE replicated_from = ${this.options.sourceId}`)).map((r) => Number(r.id)));
  }

  /** The local id of a mapped object while it still exists here. */
  private existingLocal(kind: Kind, remoteId: number): number | null {
    const row = this.map.get(key(kind, remoteId));
    return row && this.existing.get(kind)?.has(row.localId) ? row.localId : null;
  }

  /** created / updated / unchanged of one object, by its fingerprint. */
  private change(kind: Kind, remoteId: number, localId: number | null, print: string): "create" | "update" | "same" {
    if (localId === null) return "create";
    return this.map.get(key(kind, remoteId))?.fingerprint === print ? "same" : "update";
  }

  private count(change: "create" | "update" | "same"): void {
    if (change === "create") this.report.created++;
    else if (change === "update") this.report.updated++;
    else this.report.unchanged++;
  }

  private async copyStation(remoteStation: Json): Promise<void> {
    const sid = remoteStation.id as number;
    this.mark("station", sid);
    const localStation = this.existingLocal("station", sid);
    if (localStation !== null && !this.replicas.has(localStation)) return; // detached here: no longer copied
    const base = `stations/${sid}/`;
    const bulk = this.bulk;
    const [groups, files, images, events] = await Promise.all([
      bulk ? bulk.groups.get(sid) ?? [] : this.remote.list(`${base}timeseriesgroups/`),
      bulk ? bulk.files.get(sid) ?? [] : this.remote.list(`${base}files/`),
      this.remote.list(`${base}images/`),
      bulk ? bulk.events.get(sid) ?? [] : this.remote.list(`${base}events/`),
    ]);
    // A group whose series are as copied keeps them (seen, unchanged) without reading their list.
    const seriesOf = await Promise.all(groups.map(async (g) => {
      const olderShapes = bulk ? bulk.series.get(g.id as number) ?? [] : undefined;
      if (!olderShapes || !this.seriesAsCopied(g, olderShapes)) return this.remote.list(`${base}timeseriesgroups/${g.id}/timeseries/`);
      for (const o of olderShapes) {
        this.mark("series", o.id as number);
        this.report.unchanged++;
      }
      return [];
    }));
    this.walked.add(sid);

    // What each object needs: created, updated or nothing (by the fingerprint of what was copied).
    const plan = (kind: Kind, remote: Json, volatile: string[] = []): Planned => {
      const remoteId = remote.id as number;
      this.mark(kind, remoteId);
      const localId = this.existingLocal(kind, remoteId);
      const print = fingerprint(remote, volatile);
      const change = this.change(kind, remoteId, localId, print);
      this.count(change);
      return { kind, remote, remoteId, localId, print, change };
    };
    const station = plan("station", remoteStation, ["last_update"]);
    const groupPlans = groups.map((g, i) => ({ group: plan("group", g), series: seriesOf[i].map((t) => plan("series", t, ["last_modified"])) }));
    const eventPlans = events.map((e) => plan("event", e));
    const attachmentPlans = [...files.map((f) => plan("file", f)), ...images.map((i) => plan("image", i))];
    const all = [station, ...groupPlans.flatMap((g) => [g.group, ...g.series]), ...eventPlans, ...attachmentPlans];
    const queue = (ids: Map<Planned, number | null>) => {
      for (const { group, series } of groupPlans) {
        for (const t of series) {
          this.queueSeries(t.remote, `${base}timeseriesgroups/${group.remoteId}/timeseries/${t.remoteId}/data/`, ids.get(t) ?? null, int(group.remote.precision) ?? 0, sid, group.change !== "same");
        }
      }
    };
    if (this.dryRun || all.every((p) => p.change === "same")) {
      queue(new Map(all.map((p) => [p, p.localId])));
      return;
    }

    // The lookups the station uses (created before its transaction; matched again by key if it fails).
    const owner = await this.lookups.owner(int(remoteStation.owner) ?? -1);
    const stypes: number[] = [];
    for (const t of Array.isArray(remoteStation.stype) ? remoteStation.stype : []) {
      const id = int(t) === null ? null : await this.lookups.resolve("stationtype", t as number);
      if (id !== null) stypes.push(id);
    }
    const groupRefs = await Promise.all(groups.map(async (g) => ({
      variable: (await this.lookups.resolve("variable", int(g.variable) ?? -1))!,
      unit: (await this.lookups.resolve("unit", int(g.unit_of_measurement) ?? -1))!,
    })));
    const eventTypes = await Promise.all(events.map(async (e) => (await this.lookups.resolve("eventtype", int(e.type) ?? -1))!));

    const point = parsePointGeom(str(remoteStation.geom));
    if (!point.ok) throw new SourceError(`station ${sid} at the source: ${point.message}`);
    let zone = str(remoteStation.display_timezone, "Etc/GMT");
    if (!(DISPLAY_TIMEZONES as readonly string[]).includes(zone)) {
      this.warn(`station ${sid}: display time zone "${zone}" is not one of this service's; Etc/GMT is used`);
      zone = "Etc/GMT";
    }

    // Bytes of new and changed files and images, stored under new names before the transaction.
    const fetched = new Map<Planned, Fetched | null>();
    for (const a of attachmentPlans) if (a.change !== "same") fetched.set(a, await this.fetchContent(sid, a.kind, a.remote));
    const newContent = [...fetched.values()].flatMap((f) => (f?.storedName ? [f.storedName] : []));
    const replacedContent: string[] = [];
    const ids = new Map<Planned, number>();
    const now = new Date();
    try {
      await db().write(async (tx) => {
        const stationData = {
          name: str(remoteStation.name), code: str(remoteStation.code), remarks: str(remoteStation.remarks),
          originalSrid: "original_srid" in remoteStation ? int(remoteStation.original_srid) : point.srid,
          altitude: num(remoteStation.altitude), lon: point.lon, lat: point.lat, displayTimezone: zone,
          startDate: dateOrNull(remoteStation.start_date), endDate: dateOrNull(remoteStation.end_date), ownerId: owner!, overseer: str(remoteStation.overseer).slice(0, 30),
        };
        let stationId = station.localId;
        if (stationId === null) {
          stationId = await insertStationRow(tx, { ...stationData, maintainers: [], dataViewers: [], stype: [...new Set(stypes)] },
            { creatorId: null, replicatedFrom: this.options.sourceId, at: now });
        } else if (station.change === "update") {
          await tx.station.update({ where: { id: stationId }, data: { ...stationData, lastModified: now, searchNorm: stationNorm(stationData) } });
          await tx.stationStype.deleteMany({ where: { stationId } });
          if (stypes.length) await tx.stationStype.createMany({ data: [...new Set(stypes)].map((stationTypeId) => ({ stationId: stationId!, stationTypeId })) });
          await writeExactFloats(tx, "station", stationId, { lon: point.lon, lat: point.lat, altitude: stationData.altitude });
        }
        ids.set(station, stationId);

        for (let g = 0; g < groupPlans.length; g++) {
          const { group, series } = groupPlans[g];
          const r = group.remote;
          const data = {
            name: str(r.name).slice(0, 200), hidden: bool(r.hidden, false), precision: int(r.precision) ?? 0,
            remarks: str(r.remarks), variableId: groupRefs[g].variable, unitId: groupRefs[g].unit,
          };
          let groupId = group.localId;
          if (groupId === null) {
            groupId = (await tx.timeseriesGroup.create({ data: { ...data, stationId, lastModified: now, remarksNorm: remarksNorm(data.remarks) } })).id;
          } else if (group.change === "update") {
            await tx.timeseriesGroup.update({ where: { id: groupId }, data: { ...data, lastModified: now, remarksNorm: remarksNorm(data.remarks) } });
          }
          ids.set(group, groupId);
          for (const t of series) {
            const type = str(t.remote.type);
            if (!(TIMESERIES_TYPES as readonly string[]).includes(type)) throw new SourceError(`series ${t.remoteId} at the source has an unknown type "${type}"`);
            const seriesData = {
              type: typeCode(type as (typeof TIMESERIES_TYPES)[number]), timeStep: str(t.remote.time_step).slice(0, 7),
              name: str(t.remote.name).slice(0, 100), publiclyAvailable: bool(t.remote.publicly_available, true),
            };
            let seriesId = t.localId;
            if (seriesId === null) {
              seriesId = (await tx.timeseries.create({ data: { ...seriesData, groupId, lastModified: now } })).id;
            } else if (t.change === "update") {
              await tx.timeseries.update({ where: { id: seriesId }, data: { ...seriesData, groupId, lastModified: now, version: { increment: 1 } } });
            }
            ids.set(t, seriesId);
          }
        }

        for (let i = 0; i < eventPlans.length; i++) {
          const e = eventPlans[i];
          const data = { date: dateOrNull(e.remote.date) ?? "1970-01-01", user: str(e.remote.user).slice(0, 64), report: str(e.remote.report), typeId: eventTypes[i] };
          let eventId = e.localId;
          if (eventId === null) eventId = (await tx.event.create({ data: { ...data, stationId, lastModified: now } })).id;
          else if (e.change === "update") await tx.event.update({ where: { id: eventId }, data: { ...data, lastModified: now } });
          ids.set(e, eventId);
        }

        for (const a of attachmentPlans) {
          let localId = a.localId;
          if (a.change !== "same") {
            const content = fetched.get(a);
            const data = {
              date: dateOrNull(a.remote.date), descr: str(a.remote.descr).slice(0, 100), remarks: str(a.remote.remarks),
              fileName: content?.fileName ?? "", storedName: content?.storedName ?? "",
            };
            if (localId !== null) {
              const before = a.kind === "file" ? await tx.gentityFile.findUnique({ where: { id: localId } }) : await tx.gentityImage.findUnique({ where: { id: localId } });
              if (before?.storedName) replacedContent.push(before.storedName);
            }
            if (a.kind === "file") {
              localId = localId === null
                ? (await tx.gentityFile.create({ data: { ...data, stationId, lastModified: now } })).id
                : (await tx.gentityFile.update({ where: { id: localId }, data: { ...data, lastModified: now } })).id;
            } else {
              const image = { ...data, featured: bool(a.remote.featured, false) };
              localId = localId === null
                ? (await tx.gentityImage.create({ data: { ...image, stationId, lastModified: now } })).id
                : (await tx.gentityImage.update({ where: { id: localId }, data: { ...image, lastModified: now } })).id;
            }
          }
          ids.set(a, localId!);
        }
        await this.saveMap(all.map((p) => ({ kind: p.kind, remoteId: p.remoteId, localId: ids.get(p)!, parent: sid, fingerprint: p.print, recordsMark: null })), tx);
      });
    } catch (error) {
      await Promise.all(newContent.map((name) => discard(name)));
      throw error;
    }
    for (const p of all) this.existing.get(p.kind)!.add(ids.get(p)!);
    if (station.localId === null) this.replicas.add(ids.get(station)!);
    queue(ids);
    await Promise.all(replacedContent.map((name) => discard(name)));
  }

  private async fetchContent(sid: number, kind: Kind, a: Json): Promise<Fetched | null> {
    const link = str(a.content);
    if (!link) return null;
    try {
      const { name, bytes } = await this.remote.content(link, settings().maxUploadSize);
      const fileName = sanitizeFileName(name);
      return { fileName, storedName: await storeContent({ name: fileName, bytes: async () => bytes }) };
    } catch (error) {
      if (!(error instanceof SourceError) || !/HTTP 404/.test(error.message)) throw error;
      this.warn(`station ${sid}: the ${kind} ${a.id} has no content at the source`);
      return null;
    }
  }

  private queueSeries(remote: Json, dataPath: string, localId: number | null, precision: number, sid: number, verify: boolean): void {
    this.work.push({
      remote, dataPath, localId, precision, mark: typeof remote.last_modified === "string" ? remote.last_modified : null,
      label: `series ${remote.id} of station ${sid}`, verify,
    });
  }

  // ---- records

  private async copyRecords(): Promise<void> {
    // A series whose records mark is the source's last_modified is as copied: every write of its records there moves it.
    const todo = this.work.filter((w) => !(this.tracksRecordChanges && w.mark !== null && w.localId !== null && !w.verify
      && this.map.get(key("series", w.remote.id as number))?.recordsMark === w.mark));
    let done = this.work.length - todo.length;
    const total = this.work.length;
    let expected: number | null = null;
    const progress = () => this.options.onProgress?.({ phase: "records", done, total, records: this.recordsCopied, recordsExpected: expected });
    let expecting: Promise<void> = Promise.resolve();
    if (todo.length > 0 && this.tracksRecordChanges) {
      const local: number[] = [];
      for (const w of todo) local.push(w.localId === null ? 0 : (await records().summary(w.localId))?.count ?? 0);
      // The source's counts (its station export) arrive while the first series are copied.
      expecting = this.recordCounts().then((counts) => {
        if (!counts) return;
        expected = todo.reduce((sum, w, i) => sum + Math.max(0, (counts.get(w.remote.id as number) ?? 0) - local[i]), 0);
        progress();
      });
      expecting.catch(() => undefined); // awaited after the series
    }
    progress();
    let last = 0;
    await pool(todo, RECORDS_CONCURRENCY, async (w) => {
      this.checkAborted();
      await this.copySeries(w, (n) => {
        this.recordsCopied += n;
        const now = Date.now();
        if (now - last > 100) {
          last = now;
          progress();
        }
      });
      done++;
      progress();
    });
    await expecting;
  }

  /** The source's record counts, requested once per run. */
  private recordCounts(): Promise<Map<number, number> | null> {
    this.counts ??= this.remote.recordCounts(this.options.query);
    return this.counts;
  }

  /**
   * Brings one series' records up to date (docs/decisions/0014-replication.md, "Later"): the
   * source's whole data/ is read as it arrives and compared with the copy record by record
   * (timestamp, value as data/ writes it, flags); from the first record that differs — changed,
   * inserted or deleted at the source, however far in the past — the copy is rewritten with the
   * rest of the source's records, in one transaction, as they arrive. A copy that is a prefix
   * of the source's records gets the new ones appended; one that is equal gets nothing written.
   */
  private async copySeries(w: SeriesWork, counted: (n: number) => void): Promise<void> {
    const summary = w.localId === null ? null : await records().summary(w.localId);
    let reported = 0;
    const onRecords = (n: number) => {
      counted(n - reported);
      reported = n;
    };
    const chunks = await this.remote.recordChunks(w.dataPath, {});
    if (chunks === null) {
      this.warn(`${w.label}: its records were not copied: the source does not let these credentials read them`);
      return;
    }
    try {
      if (!summary || summary.count === 0 || summary.first === null || summary.last === null) {
        await this.storeChunks(w, counting(chunks, onRecords), null);
        return;
      }
      const local = records().read(w.localId!, summary.first, summary.last);
      let difference: Difference;
      try {
        difference = await firstDifference(chunks, local, w.precision);
      } finally {
        await local.return(undefined);
      }
      if (difference.from === undefined) {
        await this.moveRecordsMark(w);
        return;
      }
      if (difference.from !== null) this.report.recopied++;
      await this.storeChunks(w, counting(rest(difference.rest, chunks), onRecords), difference.from);
    } finally {
      await chunks.return(undefined);
    }
  }

  /**
   * The source's records (the rest of a series' data/, as it arrives) written in one transaction
   * that also moves the records mark and queues what a write of records causes here, as for an
   * upload: appended after the copy's last record (`from` null; a first copy too), or replacing
   * the copy's records from `from` on. A replacement's processing starts from `from`.
   */
  private async storeChunks(w: SeriesWork, chunks: AsyncIterable<RecordBatch>, from: number | null): Promise<void> {
    if (this.dryRun || w.localId === null) {
      for await (const chunk of chunks) this.report.records += chunk.timestamps.length;
      return;
    }
    const seriesId = w.localId;
    const also = (first: number) => [this.recordsMarkSql(w.remote.id as number, w.mark), ...changeStatements({ kind: "series-written", seriesId, first })];
    let written: number;
    try {
      written = await records().writeChunks(seriesId, chunks, from === null ? { also } : { replaceFrom: from, also });
    } catch (error) {
      if (error instanceof RecordsOverlap) throw new SourceError(`${w.label}: the source's records overlap those copied before`);
      throw error;
    }
    this.report.records += written;
    // Written (or replaced): the mark moved in the write's transaction.
    if (written === 0 && from === null) await this.moveRecordsMark(w);
    const entry = this.map.get(key("series", w.remote.id as number));
    if (entry) entry.recordsMark = w.mark;
  }

  /** Moves a series' records mark when no records were written. */
  private async moveRecordsMark(w: SeriesWork): Promise<void> {
    if (this.dryRun || w.localId === null) return;
    const entry = this.map.get(key("series", w.remote.id as number));
    if (entry?.recordsMark !== w.mark) {
      await db().write((tx) => tx.$executeRaw(this.recordsMarkSql(w.remote.id as number, w.mark)));
    }
    if (entry) entry.recordsMark = w.mark;
  }

  // ---- deletions at the source

  private async reportDeleted(): Promise<void> {
    const gone: MapRow[] = [];
    for (const row of this.map.values()) {
      if (!["station", "group", "series", "file", "image", "event"].includes(row.kind)) continue;
      if (this.seen.get(row.kind)?.has(row.remoteId)) continue;
      // A child counts when its station was read this run; under a station that is gone, the station is reported.
      if (row.kind === "station" || (row.parent !== null && this.walked.has(row.parent))) gone.push(row);
    }
    const replicated = new Set((await db().query<{ id: number }>(Prisma.sql`SELECT id FROM station WHERE replicated_from = ${this.options.sourceId}`)).map((r) => Number(r.id)));
    for (const row of gone) {
      const localStation = row.kind === "station" ? row.localId : this.map.get(key("station", row.parent ?? -1))?.localId;
      if (localStation === undefined || !replicated.has(localStation)) continue; // detached here: its own now
      this.report.deleted++;
      const what = `${row.kind} ${row.remoteId} (here ${row.localId})`;
      if (!this.options.prune || this.dryRun) {
        this.warn(`${what} is no longer at the source${row.kind === "station" && this.options.query ? " (or no longer matches the query)" : ""}${this.dryRun ? "" : "; kept here (prune deletes it)"}`);
        continue;
      }
      await this.deleteLocal(row);
    }
  }

  private async deleteLocal(row: MapRow): Promise<void> {
    const stored = await db().write(async (tx) => {
      let names: string[] = [];
      const id = row.localId;
      if (row.kind === "station") {
        const [files, images] = await Promise.all([
          tx.gentityFile.findMany({ where: { stationId: id }, select: { storedName: true } }),
          tx.gentityImage.findMany({ where: { stationId: id }, select: { storedName: true } }),
        ]);
        names = [...files, ...images].map((f) => f.storedName);
        await tx.gentity.deleteMany({ where: { id } });
        await tx.$executeRaw(Prisma.sql`DELETE FROM replication_map WHERE source_id = ${this.options.sourceId} AND parent = ${row.remoteId}`);
      } else if (row.kind === "group") {
        await tx.timeseriesGroup.deleteMany({ where: { id } });
      } else if (row.kind === "series") {
        await tx.timeseries.deleteMany({ where: { id } });
      } else if (row.kind === "event") {
        await tx.event.deleteMany({ where: { id } });
      } else {
        const found = row.kind === "file" ? await tx.gentityFile.findUnique({ where: { id } }) : await tx.gentityImage.findUnique({ where: { id } });
        names = found ? [found.storedName] : [];
        if (row.kind === "file") await tx.gentityFile.deleteMany({ where: { id } });
        else await tx.gentityImage.deleteMany({ where: { id } });
      }
      await tx.$executeRaw(Prisma.sql`DELETE FROM replication_map WHERE source_id = ${this.options.sourceId} AND kind = ${row.kind} AND remote_id = ${row.remoteId}`);
      return names.filter(Boolean);
    });
    await Promise.all(stored.map((name) => rm(mediaPath(name), { force: true })));
  }
}

/**
 * Where a series' records at the source first differ from its copy here (firstDifference):
 * `from` undefined when they are the same records; null when the copy's records are the
 * source's first ones and `rest` (with the source's chunks still to come) are newer, to be
 * appended; else the timestamp from which the copy is to be replaced by `rest` and the rest.
 */
interface Difference {
  readonly from: number | null | undefined;
  /** The source's records, of the chunk being read, from the first that differs or is new. */
  readonly rest: RecordBatch | null;
}

/**
 * Reads the source's records (`source`, in order) along with the copy's (`local`, all of them)
 * up to the first record that differs: a timestamp only one side has, or a value or flags that
 * data/ would write differently (values compared as written with the group's precision).
 */
async function firstDifference(source: AsyncIterator<RecordBatch>, local: AsyncIterator<RecordChunk>, precision: number): Promise<Difference> {
  let s: RecordBatch | null = null;
  let si = 0;
  let l: RecordChunk | null = null;
  let li = 0;
  for (;;) {
    if (s === null || si >= s.timestamps.length) {
      s = null;
      si = 0;
      for (let next = await source.next(); !next.done; next = await source.next()) {
        if (next.value.timestamps.length > 0) {
          s = next.value;
          break;
        }
      }
    }
    if (l === null || li >= l.length) {
      l = null;
      li = 0;
      for (let next = await local.next(); !next.done; next = await local.next()) {
        if (next.value.length > 0) {
          l = next.value;
          break;
        }
      }
    }
    if (s === null) return l === null ? { from: undefined, rest: null } : { from: l.timestamps[li], rest: null };
    if (l === null) return { from: null, rest: slice(s, si) };
    const st = s.timestamps;
    const sv = s.values;
    const sf = s.flags;
    const lt = l.timestamps;
    const lv = l.values;
    const lf = l.flags;
    for (let n = Math.min(st.length - si, l.length - li); n > 0; n--, si++, li++) {
      const t = st[si];
      if (t !== lt[li]) return { from: Math.min(t, lt[li]), rest: slice(s, si) };
      if ((sf[si] ?? "") !== (lf[li] ?? "") || !sameValue(sv[si], lv[li], precision)) return { from: t, rest: slice(s, si) };
    }
  }
}

/** Whether two values (NaN for null) are written the same in data/. */
function sameValue(a: number, b: number, precision: number): boolean {
  if (Object.is(a, b)) return true; // NaN and NaN too; not 0 and -0 ("-0.0" in data/)
  return formatValue(a === a ? a : null, precision) === formatValue(b === b ? b : null, precision);
}

function slice(batch: RecordBatch, from: number): RecordBatch {
  return from === 0 ? batch : { timestamps: batch.timestamps.subarray(from), values: batch.values.subarray(from), flags: batch.flags.slice(from) };
}

/** `first`, then the chunks still to come of `chunks`. */
async function* rest(first: RecordBatch | null, chunks: AsyncIterator<RecordBatch>): AsyncGenerator<RecordBatch> {
  if (first !== null && first.timestamps.length > 0) yield first;
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
}

/** The chunks, with the running number of their records told to `counted`. */
async function* counting(chunks: AsyncIterable<RecordBatch>, counted: (n: number) => void): AsyncGenerator<RecordBatch> {
  let n = 0;
  for await (const chunk of chunks) {
    n += chunk.timestamps.length;
    counted(n);
    yield chunk;
  }
}

/** Runs `fn` over the items, at most `limit` at once; the first failure stops the rest and is thrown. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const item = items[next++];
      try {
        await fn(item);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw failure;
}

/** One replication run; throws SourceError (with its message) when the source fails it. */
export function replicate(options: RunOptions): Promise<RunReport> {
  return new Run(options).execute();
}
