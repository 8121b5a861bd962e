/**
 * Upgrading a database of the released first phase (commit 9c2c230, migrations 0001–0003): the
 * current server is started on a database that release made and filled through its own API
 * (tests/fixtures/upgrade, made by make.ts there), applies the later migrations at start-up, and
 * must then answer every saved GET as the old server did, accept the old tokens and passwords,
 * and let the new-phase features work on the old data.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMigrations } from "@/lib/db/migrate";
import { metadataVersion } from "@/lib/domain/metadata-version";
import { api, rawGet } from "@/tests/support/http";
import { DIALECT, freePort, ROOT, scratchDatabase, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";
import { user } from "@/tests/support/fixtures";
import { runsSettled } from "@/tests/support/processes";
import { siteLogin } from "@/tests/support/site-session";
// A type only: importing make.ts for its types does not run it.
import type { SavedAnswer, UpgradeFixture as Fixture } from "@/tests/fixtures/upgrade/make";

const FIXTURE_DIR = join(ROOT, "tests", "fixtures", "upgrade", DIALECT);
const fixture = JSON.parse(readFileSync(join(FIXTURE_DIR, "expected.json"), "utf8")) as Fixture;
/** The migrations of the released first phase (PostgreSQL never had 0003, an SQLite-only index). */
const RELEASED = DIALECT === "sqlite" ? ["0001_init", "0002_station_list_indexes", "0003_flagged_records_index"] : ["0001_init", "0002_station_list_indexes"];

const SECOND_PHASE = ["0004_job_queue", "0005_processes", "0006_synoptic", "0007_replication", "0008_activity", "0009_metadata_version"];

let database: ScratchDatabase;
let mediaDir: string;
let server: TestServer;
let http: ReturnType<typeof api>;
const { admin, alice, bob } = fixture.credentials;
const { stations, groups, series } = fixture.ids;

/** Puts the old release's database into the scratch database (empty on PostgreSQL, absent on SQLite). */
async function loadOldDatabase(url: string): Promise<void> {
  if (DIALECT === "sqlite") {
    cpSync(join(FIXTURE_DIR, "old.db"), url.slice("file:".length));
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(readFileSync(join(FIXTURE_DIR, "old.sql"), "utf8"));
  } finally {
    await client.end();
  }
}

async function appliedMigrations(url: string): Promise<string[]> {
  if (DIALECT === "sqlite") {
    const db = new Database(url.slice("file:".length), { readonly: true });
    try {
      return db.prepare('SELECT "name" FROM "_migrations" ORDER BY "name"').pluck().all() as string[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('SELECT "name" FROM "_migrations" ORDER BY "name"')).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

let migrationsBefore: string[];

beforeAll(async () => {
  database = await scratchDatabase();
  await loadOldDatabase(database.url);
  migrationsBefore = await appliedMigrations(database.url);
  // The old media directory is copied: the writes below may change it.
  mediaDir = mkdtempSync(join(tmpdir(), "enhydris-upgrade-media-"));
  cpSync(join(FIXTURE_DIR, "media"), mediaDir, { recursive: true });
  // The demo data setting as the first release's default left it (true): a database with data gets none.
  // Two workers: the station list is cached in each (a test below).
  server = await startServer({ databaseUrl: database.url, migrate: false, env: { ENHYDRIS_MEDIA_DIR: mediaDir, ENHYDRIS_DEMO_DATA: "true", ENHYDRIS_WORKERS: "2" } });
  http = api(server.url);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.dispose();
  if (mediaDir) rmSync(mediaDir, { recursive: true, force: true });
});

describe("start-up on a first-phase database", () => {
  it("the fixture holds the released migrations only; the server applied the rest at start-up and is healthy", async () => {
    expect(migrationsBefore).toEqual(RELEASED);
    const applied = await appliedMigrations(database.url);
    expect(applied.slice(0, RELEASED.length + SECOND_PHASE.length)).toEqual([...RELEASED, ...SECOND_PHASE]);
    // And any migration added since.
    expect(applied).toEqual(loadMigrations(DIALECT).map((m) => m.name));
    const health = await http.get("/api/health/");
    expect(health.status, health.text).toBe(200);
    expect(health.json.status).toBe("ok");
  });
});

/**
 * What the new phase deliberately adds to an answer of the first phase, removed before comparing.
 * Each entry names the spec section that adds it. (None so far: `replicated_from`, replication.md
 * §2, is shown only on replicated stations, and no old station is one.)
 */
const DOCUMENTED_ADDITIONS: { section: string; applies: (a: SavedAnswer) => boolean; remove: (body: string) => string }[] = [
  {
    // The lookups' optional Greek description: one more field after the ones clients knew, and nothing else changed.
    section: "public.md §3 (descr_el)",
    applies: (a) => /^\/api\/(stationtypes|eventtypes|variables|filetypes)\//.test(a.path) && a.encoding === "utf8",
    remove: (body) => body.replace(/,"descr_el":"(?:[^"\\]|\\.)*"/g, ""),
  },
];

function normalized(answer: SavedAnswer, body: string): string {
  return DOCUMENTED_ADDITIONS.filter((d) => d.applies(answer)).reduce((b, d) => d.remove(b), body);
}

/** How the answers to the saved GETs differ from the first phase's (empty when none does). */
async function differencesFromSaved(): Promise<string[]> {
  const differences: string[] = [];
  for (const answer of fixture.answers) {
    const headers: Record<string, string> = {};
    if (answer.as !== "anonymous") headers.Authorization = `Token ${fixture.credentials[answer.as].token}`;
    if (answer.accept) headers.Accept = answer.accept;
    const r = await fetch(server.url + answer.path, { headers, redirect: "manual" });
    const bytes = Buffer.from(await r.arrayBuffer());
    const body = answer.encoding === "utf8" ? bytes.toString("utf8").replaceAll(server.url, "{origin}") : bytes.toString("base64");
    const what = `GET ${answer.path} as ${answer.as}${answer.accept ? ` (Accept ${answer.accept})` : ""}`;
    if (r.status !== answer.status) differences.push(`${what}: status ${r.status}, was ${answer.status}`);
    if (r.headers.get("content-type") !== answer.contentType) differences.push(`${what}: content type ${r.headers.get("content-type")}, was ${answer.contentType}`);
    if (normalized(answer, body) !== answer.body) differences.push(`${what}: body\n  now ${body.slice(0, 600)}\n  was ${answer.body.slice(0, 600)}`);
    const head = await fetch(server.url + answer.path, { method: "HEAD", headers, redirect: "manual" });
    const headBody = await head.text();
    if (head.status !== answer.status || headBody !== "") differences.push(`HEAD ${answer.path} as ${answer.as}: status ${head.status}, body of ${headBody.length} characters`);
  }
  return differences;
}

/** The number of records still stored as rows, and the conversion job's statuses (docs/decisions/0019). */
async function conversionState(url: string): Promise<{ rows: number; jobs: string[] }> {
  const sql = ["SELECT COUNT(*) AS n FROM timeseries_record", "SELECT status FROM job WHERE kind = 'records.convert' ORDER BY id"];
  if (DIALECT === "sqlite") {
    const db = new Database(url.slice("file:".length), { readonly: true });
    try {
      return { rows: Number((db.prepare(sql[0]).get() as { n: number }).n), jobs: db.prepare(sql[1]).pluck().all() as string[] };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return { rows: Number((await client.query(sql[0])).rows[0].n), jobs: (await client.query(sql[1])).rows.map((r) => r.status) };
  } finally {
    await client.end();
  }
}

describe("every saved GET answers as the first phase did", () => {
  it(`${fixture.answers.length} answers: same status, content type and body (and HEAD the same status, no body)`, async () => {
    expect(await differencesFromSaved()).toEqual([]);
  }, 120_000);

  it("the records stored as rows are converted into day blocks by the job while the server serves, and every answer stays the same", async () => {
    const deadline = Date.now() + 60_000;
    let state = await conversionState(database.url);
    while ((state.rows > 0 || !state.jobs.includes("succeeded")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = await conversionState(database.url);
    }
    expect(state).toEqual({ rows: 0, jobs: ["succeeded"] });
    expect(await differencesFromSaved()).toEqual([]);
  }, 120_000);
});

describe("old credentials", () => {
  it("old tokens still authenticate", async () => {
    for (const [name, c] of Object.entries(fixture.credentials)) {
      const r = await http.get("/api/auth/user/", { token: c.token });
      expect(r.status, r.text).toBe(200);
      expect(r.json.username).toBe(name);
    }
  });

  it("old passwords log in on the API (a new token that works) and on the site's login form", async () => {
    for (const c of Object.values(fixture.credentials)) {
      const login = await http.post("/api/auth/login/", { form: { username: c.username, password: c.password } });
      expect(login.status, login.text).toBe(200);
      expect((await http.get("/api/auth/user/", { token: login.json.key })).json.username).toBe(c.username);
      const site = await siteLogin(server.url, c.username, c.password);
      expect(site.error, c.username).toBeNull();
      const profile = await fetch(`${server.url}/accounts/profile/`, { headers: { Cookie: site.jar.header() }, redirect: "manual" });
      expect(profile.status, c.username).toBe(200);
    }
    const wrong = await siteLogin(server.url, alice.username, "not-her-password");
    expect(wrong.error).not.toBeNull();
  });
  it("old passwords authenticate HTTP Basic on the legacy interface", async () => {
    const saved = fixture.answers.find((a) => a.as === "bob" && a.path.startsWith("/api/tsdata/"))!;
    const basic = (c: { username: string; password: string }) => ({ Authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString("base64")}` });
    const r = await http.get(saved.path, { headers: basic(bob) });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe(saved.body);
    expect((await http.get(saved.path, { headers: basic({ username: bob.username, password: "wrong-password" }) })).status).toBe(401);
  });
});

describe("writes on the upgraded data", () => {
  const groupPath = (sid: number, gid: number) => `/api/stations/${sid}/timeseriesgroups/${gid}/`;
  const temperatureInitial = `${groupPath(stations.komboti, groups.temperature)}timeseries/${series.temperatureInitial}/`;
  const temperatureChecked = `${groupPath(stations.komboti, groups.temperature)}timeseries/${series.temperatureChecked}/`;

  it("a maintainer appends records to an old series; bottom/ and the station's last_update show them", async () => {
    const before = await http.get(`${temperatureInitial}data/?timezone=UTC`);
    const r = await http.post(`${temperatureInitial}data/`, { token: alice.token, form: { timeseries_records: "2026-02-01 00:00,21.5,\n2026-02-01 00:10,,RANGE", timezone: "UTC" } });
    expect(r.status, r.text).toBe(204);
    expect((await http.get(`${temperatureInitial}bottom/?timezone=UTC`)).text).toBe("2026-02-01 00:10,,RANGE");
    const after = await http.get(`${temperatureInitial}data/?timezone=UTC`);
    expect(after.text).toBe(`${before.text}2026-02-01 00:00,21.5,\r\n2026-02-01 00:10,,RANGE\r\n`);
    expect((await http.get(`/api/stations/${stations.komboti}/`)).json.last_update).toBe("2026-02-01T00:10:00Z");
  });

  it("a record inserted between old ones (mode insert) shows in the data, the chart and the statistics", async () => {
    const stats = async () => (await http.get(`/timeseries/data/?object_id=${series.temperatureInitial}`)).json;
    const before = await stats();
    const r = await http.post(`${temperatureInitial}data/`, { token: alice.token, form: { timeseries_records: "2019-12-31 23:50,99.5,INSERTED", timezone: "UTC", mode: "insert" } });
    expect(r.status, r.text).toBe(204);
    expect((await http.get(`${temperatureInitial}data/?timezone=UTC&start_date=2019-07-01T14:20&end_date=2020-03-01`)).text)
      .toBe("2019-07-01 12:20,32.0,SUSPECT TEMPORAL\r\n2019-12-31 23:50,99.5,INSERTED\r\n");
    const after = await stats();
    expect(after.stats.count).toBe(before.stats.count + 1);
    expect(after.stats.max).toBe(99.5);
    const chart = (await http.get(`${temperatureInitial}chart/?start_date=2019-12-31&end_date=2020-01-02&points=1`)).json;
    expect(chart).toMatchObject([{ max: "99.5", min: "99.5", mean: "99.5" }]);
  });

  it("new objects of every kind get new ids after the old ones (the id sequences came through the upgrade)", async () => {
    const post = async (path: string, body: Record<string, unknown>) => {
      const r = await http.post(path, { token: admin.token, json: body });
      expect(r.status, `${path} ${r.text}`).toBe(201);
      return r.json.id as number;
    };
    const { lookups, files, events, images } = fixture.ids;
    const maxOf = (ids: number[]) => Math.max(...ids);
    // Organizations and persons share one id sequence, and so do stations and geographical areas (api.md §11).
    const owners = [...lookups.organizations, ...lookups.persons];
    const organization = await post("/api/organizations/", { name: "Later organization" });
    const person = await post("/api/persons/", { last_name: "Later", first_name: "Person" });
    expect(Math.min(organization, person)).toBeGreaterThan(maxOf(owners));
    const gentities = [...lookups.gareas, stations.komboti, stations.private, stations.bare];
    const station = await post("/api/stations/", { name: "New", geom: "POINT (22 38)", owner: organization });
    const garea = await post("/api/gareas/", { name: "New area", geom: "POLYGON ((22 38, 23 38, 23 39, 22 38))" });
    expect(Math.min(station, garea)).toBeGreaterThan(maxOf(gentities));
    for (const kind of ["stationtypes", "eventtypes", "variables", "filetypes"]) {
      expect(await post(`/api/${kind}/`, { descr: `New ${kind}`, mime_type: "text/plain" })).toBeGreaterThan(maxOf(lookups[kind]));
    }
    const unit = await post("/api/units/", { descr: "New unit", symbol: "nu", variables: [] });
    expect(unit).toBeGreaterThan(maxOf(lookups.units));
    const group = await post(`/api/stations/${station}/timeseriesgroups/`, { precision: 1, variable: lookups.variables[0], unit_of_measurement: unit });
    expect(group).toBeGreaterThan(maxOf(Object.values(groups)));
    expect(await post(`/api/stations/${station}/timeseriesgroups/${group}/timeseries/`, { type: "Initial" })).toBeGreaterThan(maxOf(Object.values(series)));
    expect(await post(`/api/stations/${station}/events/`, { date: "2026-11-27", type: lookups.eventtypes[0] })).toBeGreaterThan(maxOf(events));
    const form = new FormData();
    form.append("descr", "New file");
    form.append("content", new Blob(["new"], { type: "text/plain" }), "new.txt");
    const file = await http.post(`/api/stations/${station}/files/`, { token: admin.token, body: form });
    expect(file.status, file.text).toBe(201);
    expect(file.json.id).toBeGreaterThan(maxOf(files));
    expect((await http.get(`/api/stations/${station}/files/${file.json.id}/content/`)).text).toBe("new");
    const image = new FormData();
    image.append("content", new Blob([Buffer.from(fixture.answers.find((a) => a.contentType === "image/png")!.body, "base64")], { type: "image/png" }), "new.png");
    const posted = await http.post(`/api/stations/${station}/images/`, { token: admin.token, body: image });
    expect(posted.status, posted.text).toBe(201);
    expect(posted.json.id).toBeGreaterThan(maxOf(images));
    // The old files are where they were.
    for (const answer of fixture.answers.filter((a) => a.path.endsWith("/content/"))) {
      const r = await fetch(server.url + answer.path);
      expect(Buffer.from(await r.arrayBuffer()).toString(answer.encoding === "utf8" ? "utf8" : "base64"), answer.path).toBe(answer.body);
    }
  });

  it("a maintainer appends through the legacy interface (HTTP Basic, old password)", async () => {
    const basic = `Basic ${Buffer.from(`${alice.username}:${alice.password}`).toString("base64")}`;
    const r = await http.put(`/api/tsdata/${series.rainInitial}/`, { headers: { Authorization: basic }, form: { timeseries_records: "2026-02-01 00:00,1.5,\n2026-02-01 00:10,0,", timezone: "UTC" } });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe("2");
    expect((await http.get(`${groupPath(stations.komboti, groups.rain)}timeseries/${series.rainInitial}/bottom/?timezone=UTC`)).text).toBe("2026-02-01 00:10,0.00,");
  });

  it("an old station is edited through the API, and the station list and search (cached in every worker) see the change", async () => {
    const names = async (path: string) => {
      const seen = new Set<string>();
      // Each on a new connection, so that both workers of the server answer, and cache, it.
      for (let i = 0; i < 8; i++) {
        const r = await rawGet(server.url, path, { Host: "127.0.0.1", Connection: "close" });
        expect(r.status, r.text).toBe(200);
        seen.add(JSON.stringify((r.json.results as { name: string }[]).map((x) => x.name)));
      }
      return [...seen].map((x) => JSON.parse(x) as string[]);
    };
    expect(await names("/api/stations/?q=bare")).toEqual([["Athens (bare)"]]);
    expect(await names("/api/stations/?q=kastraki")).toEqual([[]]);
    const version = await metadataVersion();
    expect(version).not.toBeNull();
    const old = (await http.get(`/api/stations/${stations.bare}/`)).json;
    const r = await http.patch(`/api/stations/${stations.bare}/`, { token: admin.token, json: { name: "Kastraki" } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ...old, name: "Kastraki", last_modified: r.json.last_modified });
    expect(r.json.last_modified > old.last_modified).toBe(true);
    expect(await metadataVersion()).toBeGreaterThan(version!);
    expect(await names("/api/stations/?q=bare")).toEqual([[]]);
    expect(await names("/api/stations/?q=kastraki")).toEqual([["Kastraki"]]);
    // A maintainer of an old station may edit it; another user may not.
    expect((await http.patch(`/api/stations/${stations.komboti}/`, { token: alice.token, json: { remarks: "Edited after the upgrade" } })).status).toBe(200);
    expect((await http.patch(`/api/stations/${stations.komboti}/`, { token: bob.token, json: { remarks: "no" } })).status).toBe(403);
    expect(await names("/api/stations/?q=upgrade")).toEqual([["Komboti"]]);
  });

  it("checks created on an old group and run (wait) rewrite its old Checked series from its Initial one", async () => {
    const created = await http.post(`${groupPath(stations.komboti, groups.temperature)}processes/`, {
      token: alice.token, json: { type: "checks", range_check: { lower_bound: -5, upper_bound: 15, soft_lower_bound: null, soft_upper_bound: null }, rate_of_change_check: null },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.source_timeseries).toBe(series.temperatureInitial);
    expect(created.json.target_timeseries).toBe(series.temperatureChecked);
    const run = await http.post(`${groupPath(stations.komboti, groups.temperature)}processes/${created.json.id}/run/`, { token: alice.token, json: { from_scratch: true, wait: true } });
    expect(run.status, run.text).toBe(200);
    expect(run.json.status, run.text).toBe("succeeded");
    // The records as stored (three decimals; the group's precision of 1 would round them).
    const precision = await http.patch(groupPath(stations.komboti, groups.temperature), { token: alice.token, json: { precision: 3 } });
    expect(precision.status, precision.text).toBe(200);
    const initial = (await http.get(`${temperatureInitial}data/?timezone=UTC`)).text.split("\r\n").filter(Boolean);
    const checked = (await http.get(`${temperatureChecked}data/?timezone=UTC`)).text.split("\r\n").filter(Boolean);
    expect(checked.length).toBe(initial.length);
    const expected = initial.map((line) => {
      const [time, value, flags] = line.split(",");
      if (value === "" || (Number(value) >= -5 && Number(value) <= 15)) return line;
      return `${time},,${[flags, "RANGE"].filter(Boolean).join(" ")}`;
    });
    expect(checked).toEqual(expected);
    expect(expected.some((line, i) => line !== initial[i])).toBe(true);
    // An upload to the old Initial series now queues the checks (the durable queue), which write its Checked series.
    const upload = await http.post(`${temperatureInitial}data/`, { token: alice.token, form: { timeseries_records: "2026-02-02 00:00,30.25,", timezone: "UTC" } });
    expect(upload.status, upload.text).toBe(204);
    await runsSettled();
    expect((await http.get(`${temperatureChecked}bottom/?timezone=UTC`)).text).toBe("2026-02-02 00:00,,RANGE");
  });

  it("an old series in a synoptic group: latest/ gives its last value; a private one only to its data viewer", async () => {
    const entry = (gid: number) => ({ timeseries_group: gid, title: "", subtitle: "", low_limit: null, high_limit: 1, default_chart_min: null, default_chart_max: null, rate_of_change: null });
    const created = await http.post("/api/synopticgroups/", {
      token: admin.token,
      json: {
        name: "Upgrade", slug: "upgrade", display_timezone: "Etc/GMT-2", fresh_time_limit: 3600, early_warning_emails: [],
        stations: [{ station: stations.komboti, timeseries_groups: [entry(groups.rain)] }, { station: stations.private, timeseries_groups: [entry(groups.stage)] }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const rainBottom = (await http.get(`${groupPath(stations.komboti, groups.rain)}timeseries/${series.rainInitial}/bottom/?timezone=UTC`)).text;
    const stageBottom = (await http.get(`${groupPath(stations.private, groups.stage)}timeseries/${series.stagePrivate}/bottom/?timezone=UTC`, { token: bob.token })).text;
    const [rainTime, rainValue] = rainBottom.split(",");
    const [stageTime, stageValue] = stageBottom.split(",");
    const latest = async (token?: string) => {
      const r = await http.get(`/api/synopticgroups/${created.json.id}/latest/`, { token });
      expect(r.status, r.text).toBe(200);
      return r.json as { station: number; last_common_date: string; values: { timeseries_group: number; value: number | null; status: string }[] }[];
    };
    const anonymous = await latest();
    expect(anonymous.map((s) => s.station)).toEqual([stations.komboti, stations.private]);
    expect(anonymous[0].values).toMatchObject([{ timeseries_group: groups.rain, value: Number(rainValue), status: Number(rainValue) > 1 ? "high" : "ok" }]);
    expect(anonymous[0].last_common_date.replace("T", " ")).toContain(rainTime);
    expect(anonymous[1].values).toMatchObject([{ timeseries_group: groups.stage, value: null, status: "hidden" }]);
    const viewer = await latest(bob.token);
    expect(viewer[1].values).toMatchObject([{ timeseries_group: groups.stage, value: Number(stageValue), status: Number(stageValue) > 1 ? "high" : "ok" }]);
    expect(viewer[1].last_common_date.replace("T", " ")).toContain(stageTime);
  });
});

describe("activity after the upgrade", () => {
  it("the station's activity lists the writes made since, newest first, to its editors only", async () => {
    const r = await http.get(`/api/stations/${stations.komboti}/activity/`, { token: alice.token });
    expect(r.status, r.text).toBe(200);
    const entries = r.json.results as { user: string; action: string; object_type: string; object_id: number }[];
    expect(entries.length).toBeGreaterThan(0);
    expect(entries).toContainEqual(expect.objectContaining({ user: "alice", object_type: "timeseries", object_id: series.temperatureInitial }));
    expect(entries).toContainEqual(expect.objectContaining({ user: "alice", object_type: "station", object_id: stations.komboti }));
    expect((await http.get(`/api/stations/${stations.komboti}/activity/`, { token: bob.token })).status).toBe(403);
  });
});

describe("the site on the upgraded data", () => {
  const { komboti, private: privateStation, bare } = stations;
  const groupsOf: [number, number][] = [[komboti, groups.temperature], [komboti, groups.rain], [privateStation, groups.stage]];
  const seriesOf: [number, number, number][] = [[komboti, groups.temperature, series.temperatureInitial], [komboti, groups.temperature, series.temperatureChecked],
    [komboti, groups.rain, series.rainInitial], [komboti, groups.rain, series.rainDaily], [privateStation, groups.stage, series.stagePrivate]];
  const { files, images, events, lookups } = fixture.ids;
  const attachments: [number, string, number][] = [
    [komboti, "files", files[0]], [komboti, "files", files[1]], [privateStation, "files", files[2]],
    [komboti, "images", images[0]], [komboti, "images", images[1]],
    [komboti, "events", events[0]], [komboti, "events", events[1]], [privateStation, "events", events[2]],
  ];

  async function statuses(paths: string[], cookie?: string): Promise<string[]> {
    const seen: string[] = [];
    for (const path of paths) {
      const r = await fetch(server.url + path, { headers: cookie ? { Cookie: cookie } : {}, redirect: "manual" });
      const text = await r.text();
      seen.push(`${r.status} ${path}${r.status >= 500 ? ` ${text.slice(0, 300)}` : ""}`);
    }
    return seen;
  }
  const all = (status: number, paths: string[]) => paths.map((p) => `${status} ${p}`);

  it("public pages of every old station and group answer 200", async () => {
    const paths = ["/", ...[komboti, privateStation, bare].map((sid) => `/stations/${sid}/`),
      ...groupsOf.map(([sid, gid]) => `/stations/${sid}/timeseriesgroups/${gid}/`),
      // The synoptic group made above of old stations.
      "/synoptic/", "/synoptic/upgrade/", `/synoptic/upgrade/stations/${komboti}/`, `/synoptic/upgrade/stations/${privateStation}/`];
    expect(await statuses(paths)).toEqual(all(200, paths));
  });

  it("a superuser opens every management page of the old objects", async () => {
    const { jar, error } = await siteLogin(server.url, admin.username, admin.password);
    expect(error).toBeNull();
    const paths = [
      "/manage/", "/manage/lookups/", "/manage/users/", "/manage/synoptic/", "/manage/replication/", "/manage/stations/new/",
      ...[komboti, privateStation, bare].flatMap((sid) => [`/manage/stations/${sid}/`, `/manage/stations/${sid}/delete/`]),
      ...groupsOf.flatMap(([sid, gid]) => [`/manage/stations/${sid}/timeseriesgroups/${gid}/`, `/manage/stations/${sid}/timeseriesgroups/${gid}/delete/`]),
      ...seriesOf.flatMap(([sid, gid, tid]) => [`/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/upload/`,
        `/manage/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/delete/`]),
      ...attachments.flatMap(([sid, kind, id]) => [`/manage/stations/${sid}/${kind}/${id}/`, `/manage/stations/${sid}/${kind}/${id}/delete/`]),
      ...Object.entries(lookups).flatMap(([kind, ids]) => [`/manage/lookups/${kind}/`, ...ids.flatMap((id) => [`/manage/lookups/${kind}/${id}/`, `/manage/lookups/${kind}/${id}/delete/`])]),
      ...[1, 2, 3].map((id) => `/manage/users/${id}/`),
    ];
    expect(await statuses(paths, jar.header())).toEqual(all(200, paths));
    // What a delete takes is counted from the old rows.
    const page = await (await fetch(`${server.url}/manage/stations/${privateStation}/delete/`, { headers: { Cookie: jar.header() } })).text();
    expect(page).toContain("1 time series group, 1 time series, 500 records, 1 file");
  });

  it("a maintainer manages her old station and not the others", async () => {
    const { jar } = await siteLogin(server.url, alice.username, alice.password);
    const mine = ["/manage/", `/manage/stations/${komboti}/`, `/manage/stations/${komboti}/timeseriesgroups/${groups.temperature}/`];
    const others = [`/manage/stations/${privateStation}/`, `/manage/stations/${bare}/`, "/manage/lookups/", "/manage/users/"];
    expect(await statuses([...mine, ...others], jar.header())).toEqual([...all(200, mine), ...all(403, others)]);
  });
});

describe("replication from the upgraded instance", () => {
  /** A station's groups and series with their records, keyed by what identifies them on both sides. */
  async function contents(base: string, token: string): Promise<Record<string, unknown>> {
    const h = api(base);
    const out: Record<string, unknown> = {};
    for (const st of (await h.get("/api/stations/?page_size=100", { token })).json.results as { id: number; name: string }[]) {
      const { id, last_modified: _m, owner: _o, maintainers: _mt, stype: _st, data_viewers: _dv, replicated_from: _r, ...station } = (await h.get(`/api/stations/${st.id}/`, { token })).json;
      out[`station ${st.name}`] = station;
      for (const g of (await h.get(`/api/stations/${id}/timeseriesgroups/`, { token })).json.results as { id: number; name: string; precision: number; remarks: string; hidden: boolean }[]) {
        out[`station ${st.name} group ${g.name}`] = { precision: g.precision, remarks: g.remarks, hidden: g.hidden };
        for (const t of (await h.get(`/api/stations/${id}/timeseriesgroups/${g.id}/timeseries/`, { token })).json.results as { id: number; type: string; time_step: string; name: string; publicly_available: boolean }[]) {
          const data = await h.get(`/api/stations/${id}/timeseriesgroups/${g.id}/timeseries/${t.id}/data/?timezone=UTC`, { token });
          out[`station ${st.name} group ${g.name} ${t.type} ${t.time_step} ${t.name}`] = { publicly_available: t.publicly_available, status: data.status, data: data.text };
        }
      }
    }
    return out;
  }

  it("a new instance copies the old stations, groups, series and every record (with a superuser's old token)", async () => {
    // It replicates from the old instance, on 127.0.0.1: outbound requests reach it only when allowed.
    const target = await startServer({ env: { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
    try {
      const targetAdmin = await user({ superuser: true });
      const t = api(target.url);
      const source = await t.post("/api/replication/sources/", { token: targetAdmin.token, json: { name: "Upgraded", url: server.url, token: admin.token } });
      expect(source.status, source.text).toBe(201);
      const run = await t.post(`/api/replication/sources/${source.json.id}/run/`, { token: targetAdmin.token, json: { wait: true } });
      expect(run.status, run.text).toBe(200);
      expect(run.json.status, run.text).toBe("succeeded");
      const copied = await contents(target.url, targetAdmin.token);
      const original = await contents(server.url, admin.token);
      expect(Object.keys(original).length).toBeGreaterThan(10);
      expect(copied).toEqual(original);
    } finally {
      await target.stop();
    }
  }, 120_000);
});

describe("an old password changed after the upgrade", () => {
  it("the old password opens the change; then only the new one logs in, and the token that made the change still works", async () => {
    const change = await http.post("/api/auth/password/change/", {
      token: bob.token, form: { old_password: bob.password, new_password1: "bob-new-Pa55-after", new_password2: "bob-new-Pa55-after" },
    });
    expect(change.status, change.text).toBe(200);
    expect((await http.post("/api/auth/login/", { form: { username: bob.username, password: bob.password } })).status).toBe(400);
    expect((await http.post("/api/auth/login/", { form: { username: bob.username, password: "bob-new-Pa55-after" } })).status).toBe(200);
    expect((await http.get("/api/auth/user/", { token: bob.token })).json.username).toBe(bob.username);
  });
});

describe("npm run db:migrate on a first-phase database", () => {
  it("applies the migrations, says how many records are still rows, converts them with --convert, and then finds nothing left", async () => {
    const other = await scratchDatabase();
    const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "scripts/migrate.ts", ...args], {
      cwd: ROOT, encoding: "utf8", env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.json", DATABASE_URL: other.url },
    });
    try {
      await loadOldDatabase(other.url);
      const first = cli();
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toContain(`Applied: ${loadMigrations(DIALECT).map((m) => m.name).filter((m) => !RELEASED.includes(m)).join(", ")}\n`);
      const { rows } = await conversionState(other.url);
      expect(rows).toBeGreaterThan(0);
      const left = first.stdout.match(/^(\d+) series \(([\d,]+) records\) are still stored as rows\. The service converts them/m);
      expect(left, first.stdout).not.toBeNull();
      expect(Number(left![2].replaceAll(",", ""))).toBe(rows);

      const converted = cli("--convert");
      expect(converted.status, converted.stderr).toBe(0);
      expect(converted.stdout).toContain(`The database is up to date.\nConverting ${left![1]} series (${left![2]} records) into day blocks…\n`);
      expect(converted.stdout).toMatch(new RegExp(`^Converted ${left![1]} series \\(${left![2]} records\\) in [\\d.]+ s\\.$`, "m"));
      expect((await conversionState(other.url)).rows).toBe(0);

      const after = cli();
      expect([after.status, after.stdout]).toEqual([0, "The database is up to date.\n"]);
    } finally {
      await other.dispose();
    }
  }, 120_000);
});

describe("the first release's configuration", () => {
  it("without ENHYDRIS_SITE_URL or ENHYDRIS_ALLOWED_HOSTS the server refuses to start, says why, and leaves the old database as it was", async () => {
    const other = await scratchDatabase();
    try {
      await loadOldDatabase(other.url);
      const env: NodeJS.ProcessEnv = {
        ...process.env, NODE_ENV: "production", PORT: String(await freePort()), HOSTNAME_BIND: "127.0.0.1", DATABASE_URL: other.url,
        ENHYDRIS_DEMO_DATA: "0", ENHYDRIS_MEDIA_DIR: mediaDir, ENHYDRIS_SECRET_KEY: "test-secret-key-for-the-test-suite",
      };
      delete env.ENHYDRIS_ALLOWED_HOSTS;
      delete env.ENHYDRIS_SITE_URL;
      const child = spawn(process.execPath, ["server.mjs"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout!.on("data", (d) => (output += d));
      child.stderr!.on("data", (d) => (output += d));
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      const code = await new Promise((resolve) => child.once("exit", resolve));
      clearTimeout(timer);
      expect(code, output).toBe(1);
      expect(output).toContain("Refusing to start in production without ENHYDRIS_SITE_URL or ENHYDRIS_ALLOWED_HOSTS");
      expect(await appliedMigrations(other.url)).toEqual(RELEASED);
    } finally {
      await other.dispose();
    }
  }, 90_000);
});
