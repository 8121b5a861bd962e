/**
 * synopticgroups/ (synoptic.md §1) over HTTP on the dialect under test: the object and its
 * order, creation by any user, writes by the creator and superusers only (404 before 401/403,
 * 401 before 400), every validation rule and message, form bodies, PUT and PATCH keeping what is
 * not sent, and `latest/`: the last common date, the value of the default series at it with the
 * group's precision, statuses, freshness, and private values hidden from those who may not read
 * them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let owner: f.TestUser;
let other: f.TestUser;
let viewer: f.TestUser;
let temperature: number;
let celsius: number;

/** Two public stations and one with a private series, each with a group and series. */
const s = { arta: 0, komboti: 0, secret: 0, artaTemp: 0, artaRain: 0, kombotiTemp: 0, secretStage: 0, artaInitial: 0, artaChecked: 0, artaRainSeries: 0, kombotiSeries: 0, secretSeries: 0 };

const HOUR = 3600;
const T0 = Date.UTC(2025, 5, 1, 10, 0) / 1000; // 2025-06-01T10:00Z
const iso = (t: number) => new Date(t * 1000).toISOString();

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true });
  owner = await f.user();
  other = await f.user();
  viewer = await f.user();
  temperature = await f.variable("Temperature");
  celsius = await f.unit("°C", [temperature]);
  const rain = await f.variable("Rain");
  const mm = await f.unit("mm", [rain]);
  const stage = await f.variable("Stage");
  const metres = await f.unit("m", [stage]);
  s.arta = await f.station({ name: "Arta", lon: 20.98, lat: 39.16 });
  s.komboti = await f.station({ name: "Komboti", lon: 21.06071, lat: 39.09518 });
  s.secret = await f.station({ name: "Secret gauge", lon: 21.2, lat: 39.3, dataViewers: [viewer.id] });
  s.artaTemp = await f.group(s.arta, { name: "Air temperature", precision: 1, variableId: temperature, unitId: celsius });
  s.artaRain = await f.group(s.arta, { name: "", precision: 2, variableId: rain, unitId: mm });
  s.kombotiTemp = await f.group(s.komboti, { name: "Air temperature", precision: 1, variableId: temperature, unitId: celsius });
  s.secretStage = await f.group(s.secret, { name: "Stage", precision: 2, variableId: stage, unitId: metres });
  s.artaInitial = await f.series(s.artaTemp, { type: "Initial", timeStep: "10min" });
  s.artaChecked = await f.series(s.artaTemp, { type: "Checked", timeStep: "10min" });
  s.artaRainSeries = await f.series(s.artaRain, { type: "Initial", timeStep: "10min" });
  s.kombotiSeries = await f.series(s.kombotiTemp, { type: "Initial", timeStep: "10min" });
  s.secretSeries = await f.series(s.secretStage, { type: "Initial", timeStep: "10min", publiclyAvailable: false });
  // Arta's last common date is T0 (its rain ends there); its temperature goes on to T0 + 1 h.
  await f.addRecords(s.artaInitial, [[iso(T0), 99]]);
  await f.addRecords(s.artaChecked, [[iso(T0 - 600), 20.04], [iso(T0), 21.25], [iso(T0 + HOUR), 25]]);
  await f.addRecords(s.artaRainSeries, [[iso(T0 - 600), 0.5], [iso(T0), 0.125]]);
  await f.addRecords(s.kombotiSeries, [[iso(T0 + 2 * HOUR), null]]);
  await f.addRecords(s.secretSeries, [[iso(T0), 3.456]]);
});
afterAll(() => server?.stop());

const KEYS = ["id", "last_modified", "name", "slug", "display_timezone", "fresh_time_limit", "early_warning_emails", "stations"];
const LAST_MODIFIED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DENIED = { detail: "You do not have permission to perform this action." };
const ANONYMOUS = { detail: "Authentication credentials were not provided." };
const NOT_FOUND = { detail: "Not found." };

let slugs = 0;
const slug = () => `group-${++slugs}`;

function series(gid: number, extra: Record<string, unknown> = {}) {
  return { timeseries_group: gid, title: "", subtitle: "", low_limit: null, high_limit: null, default_chart_min: null, default_chart_max: null, rate_of_change: null, ...extra };
}

const body = (extra: Record<string, unknown> = {}) => ({
  name: "Flood watch",
  slug: slug(),
  display_timezone: "Etc/GMT-2",
  fresh_time_limit: 3600,
  early_warning_emails: ["duty@example.com"],
  stations: [
    { station: s.arta, timeseries_groups: [series(s.artaTemp, { title: "Temperature", high_limit: 30, low_limit: -5 }), series(s.artaRain)] },
    { station: s.komboti, timeseries_groups: [series(s.kombotiTemp)] },
  ],
  ...extra,
});

async function created(token: string, extra: Record<string, unknown> = {}): Promise<TestResponse> {
  const r = await http.post("/api/synopticgroups/", { token, json: body(extra) });
  expect(r.status, r.text).toBe(201);
  return r;
}

function expect400(r: TestResponse, errors: Record<string, string[]>) {
  expect(r.status, r.text).toBe(400);
  expect(r.json).toEqual(errors);
}

describe("synopticgroups/ objects", () => {
  it("POST by any user creates it: 201 with the object, keys in order", async () => {
    const sent = body();
    const r = await http.post("/api/synopticgroups/", { token: owner.token, json: sent });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json)).toEqual(KEYS);
    expect(r.json).toEqual({ id: r.json.id, last_modified: r.json.last_modified, ...sent });
    expect(r.json.last_modified).toMatch(LAST_MODIFIED);
    expect(r.text).toBe(JSON.stringify(r.json));
    expect((await http.get(`/api/synopticgroups/${r.json.id}/`)).json).toEqual(r.json);
  });

  it("POST {} says what is required; defaults fill the rest", async () => {
    expect400(await http.post("/api/synopticgroups/", { token: owner.token, json: {} }), {
      name: ["This field is required."], slug: ["This field is required."], fresh_time_limit: ["This field is required."],
    });
    const r = await http.post("/api/synopticgroups/", { token: owner.token, json: { name: " Minimal ", slug: slug(), fresh_time_limit: "600" } });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ name: "Minimal", display_timezone: "Etc/GMT", fresh_time_limit: 600, early_warning_emails: [], stations: [] });
  });

  it("a form body: stations as JSON text, addresses as a repeated key", async () => {
    const sent = body();
    const r = await http.post("/api/synopticgroups/", {
      token: owner.token,
      form: [["name", sent.name], ["slug", sent.slug as string], ["fresh_time_limit", "3600"], ["display_timezone", "Etc/GMT-2"],
        ["early_warning_emails", " a@example.com "], ["early_warning_emails", "b@example.com"], ["early_warning_emails", "A@example.com"],
        ["stations", JSON.stringify(sent.stations)]],
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.early_warning_emails).toEqual(["a@example.com", "b@example.com"]);
    expect(r.json.stations).toEqual(sent.stations);
  });

  it("lists by name, paginated; anyone reads", async () => {
    const z = await created(owner.token, { name: "Zeta" });
    const a = await created(owner.token, { name: "Alpha" });
    const r = await http.get("/api/synopticgroups/?page_size=1000");
    expect(r.status).toBe(200);
    const names = r.json.results.map((g: { name: string }) => g.name);
    expect(names).toEqual([...names].sort());
    expect(r.json.results.find((g: { id: number }) => g.id === z.json.id)).toEqual(z.json);
    expect(r.json.results.find((g: { id: number }) => g.id === a.json.id)).toEqual(a.json);
    expect((await http.get("/api/synopticgroups/?page_size=1")).json).toMatchObject({ count: r.json.count, previous: null, results: [{ name: "Alpha" }] });
    expect((await http.get("/api/synopticgroups/999999/")).json).toEqual(NOT_FOUND);
  });

  it("PUT replaces, keeping what is omitted; PATCH writes what is sent", async () => {
    const g = (await created(owner.token)).json;
    const put = await http.put(`/api/synopticgroups/${g.id}/`, { token: owner.token, json: { name: "Renamed", slug: g.slug, fresh_time_limit: 60 } });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ ...g, name: "Renamed", fresh_time_limit: 60, last_modified: put.json.last_modified });
    expect(put.json.last_modified > g.last_modified).toBe(true);
    const stations = [{ station: s.komboti, timeseries_groups: [series(s.kombotiTemp, { low_limit: 1.5 })] }];
    const patch = await http.patch(`/api/synopticgroups/${g.id}/`, { token: owner.token, json: { stations, early_warning_emails: [] } });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.json).toEqual({ ...put.json, stations, early_warning_emails: [], last_modified: patch.json.last_modified });
  });

  it("limits are stored exactly", async () => {
    const low = 0.1 + 0.2;
    const g = (await created(owner.token, { stations: [{ station: s.komboti, timeseries_groups: [series(s.kombotiTemp, { low_limit: low, high_limit: 1e21, default_chart_min: -1e-7 })] }] })).json;
    expect(g.stations[0].timeseries_groups[0]).toMatchObject({ low_limit: low, high_limit: 1e21, default_chart_min: -1e-7 });
  });

  it("DELETE by the creator: 204, gone", async () => {
    const g = (await created(owner.token)).json;
    const r = await http.delete(`/api/synopticgroups/${g.id}/`, { token: owner.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await http.get(`/api/synopticgroups/${g.id}/`)).status).toBe(404);
  });

  it("deleting a station or group takes it out of the synoptic groups", async () => {
    const station = await f.station({ name: "Short-lived" });
    const group = await f.group(station, { variableId: temperature, unitId: celsius });
    const g = (await created(owner.token, {
      stations: [{ station: s.komboti, timeseries_groups: [series(s.kombotiTemp)] }, { station, timeseries_groups: [series(group)] }],
    })).json;
    expect((await http.delete(`/api/stations/${station}/`, { token: admin.token })).status).toBe(204);
    expect((await http.get(`/api/synopticgroups/${g.id}/`)).json.stations).toEqual([{ station: s.komboti, timeseries_groups: [series(s.kombotiTemp)] }]);
  });
});

describe("permissions", () => {
  it("creating needs a login: 401 (before the body is validated)", async () => {
    const r = await http.post("/api/synopticgroups/", { json: { slug: "not a slug" } });
    expect(r.status).toBe(401);
    expect(r.json).toEqual(ANONYMOUS);
    expect(r.headers.get("www-authenticate")).toBe("Token");
  });

  it("the creator and superusers write; others get 403, anonymous 401; a missing group is 404 first", async () => {
    const g = (await created(owner.token)).json;
    const path = `/api/synopticgroups/${g.id}/`;
    for (const method of ["put", "patch", "delete"] as const) {
      const asOther = await http[method](path, { token: other.token, json: { name: "x" } });
      expect(asOther.status, method).toBe(403);
      expect(asOther.json).toEqual(DENIED);
      expect((await http[method](path, { json: { name: "x" } })).status, method).toBe(401);
      expect((await http[method]("/api/synopticgroups/999999/", { json: { name: "x" } })).json, method).toEqual(NOT_FOUND);
    }
    // A data viewer or editor of the stations is not an editor of the synoptic group.
    expect((await http.patch(path, { token: viewer.token, json: { name: "x" } })).status).toBe(403);
    const byAdmin = await http.patch(path, { token: admin.token, json: { name: "By the superuser" } });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.json.name).toBe("By the superuser");
    expect((await http.patch(path, { token: owner.token, json: { name: "Back" } })).status).toBe(200);
    expect((await http.delete(path, { token: admin.token })).status).toBe(204);
  });

  it("an invalid body from someone who may not write is 403, not 400", async () => {
    const g = (await created(owner.token)).json;
    expect((await http.patch(`/api/synopticgroups/${g.id}/`, { token: other.token, json: { fresh_time_limit: 0 } })).status).toBe(403);
  });
});

describe("validation (every message)", () => {
  const post = (json: unknown, token = owner.token) => http.post("/api/synopticgroups/", { token, json });

  it("name, slug, time zone, freshness, addresses", async () => {
    expect400(await post(body({ name: "", slug: "no spaces", display_timezone: "Europe/Athens", fresh_time_limit: 0, early_warning_emails: ["ok@example.com", "nope"] })), {
      name: ["This field may not be blank."],
      slug: ['Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'],
      display_timezone: ['"Europe/Athens" is not a valid choice.'],
      fresh_time_limit: ["Ensure this value is greater than or equal to 1."],
      early_warning_emails: ["early_warning_emails[1]: Enter a valid email address."],
    });
    expect400(await post(body({ name: "x".repeat(51), slug: "y".repeat(51), fresh_time_limit: 1.5, early_warning_emails: "a@example.com" })), {
      name: ["Ensure this field has no more than 50 characters."],
      slug: ["Ensure this field has no more than 50 characters."],
      fresh_time_limit: ["A valid integer is required."],
      early_warning_emails: ['Expected a list of items but got type "str".'],
    });
  });

  it("at most 20 warning addresses: more is 400 naming the field, in JSON and form bodies, on create, PUT and PATCH", async () => {
    const TOO_MANY = { early_warning_emails: ["Ensure this field has no more than 20 elements."] };
    const addresses = (n: number) => Array.from({ length: n }, (_, i) => `duty${i}@example.com`);
    expect((await created(owner.token, { early_warning_emails: addresses(20) })).json.early_warning_emails).toEqual(addresses(20));
    expect400(await post(body({ early_warning_emails: addresses(21) })), TOO_MANY);
    // The probe's repro: 5,000 addresses (some invalid, which the refusal does not list one by one).
    expect400(await post(body({ early_warning_emails: [...addresses(4999), "not an address"] })), TOO_MANY);
    const sent = body();
    const form = await http.post("/api/synopticgroups/", {
      token: owner.token,
      form: [["name", sent.name], ["slug", sent.slug as string], ["fresh_time_limit", "3600"], ...addresses(21).map((a) => ["early_warning_emails", a] as [string, string])],
    });
    expect400(form, TOO_MANY);
    const g = (await created(owner.token)).json;
    expect400(await http.patch(`/api/synopticgroups/${g.id}/`, { token: owner.token, json: { early_warning_emails: addresses(21) } }), TOO_MANY);
    expect400(await http.put(`/api/synopticgroups/${g.id}/`, { token: owner.token, json: body({ slug: g.slug, early_warning_emails: addresses(5000) }) }), TOO_MANY);
    expect((await http.get(`/api/synopticgroups/${g.id}/`)).json.early_warning_emails).toEqual(["duty@example.com"]);
  });

  it("a slug is unique", async () => {
    const g = (await created(owner.token)).json;
    expect400(await post(body({ slug: g.slug })), { slug: ["A synoptic group with this slug already exists."] });
    const other2 = (await created(owner.token)).json;
    expect400(await http.patch(`/api/synopticgroups/${other2.id}/`, { token: owner.token, json: { slug: g.slug } }), { slug: ["A synoptic group with this slug already exists."] });
    expect((await http.patch(`/api/synopticgroups/${g.id}/`, { token: owner.token, json: { slug: g.slug } })).status).toBe(200);
  });

  it("the shape of stations", async () => {
    expect400(await post(body({ stations: { station: s.arta } })), { stations: ['Expected a list of items but got type "dict".'] });
    expect400(await post(body({ stations: null })), { stations: ["This field may not be null."] });
    expect400(await post(body({ stations: [5, { timeseries_groups: "x" }, { station: "a", timeseries_groups: [{ title: 3.5, low_limit: "low", rate_of_change: [] }] }] })), {
      stations: [
        "stations[0]: Invalid data. Expected a dictionary, but got int.",
        "stations[1].station: This field is required.",
        'stations[1].timeseries_groups: Expected a list of items but got type "str".',
        "stations[2].station: Incorrect type. Expected pk value, received str.",
        "stations[2].timeseries_groups[0].timeseries_group: This field is required.",
        "stations[2].timeseries_groups[0].low_limit: A valid number is required.",
        "stations[2].timeseries_groups[0].rate_of_change: Invalid data. Expected a dictionary, but got list.",
      ],
    });
    const form = await http.post("/api/synopticgroups/", { token: owner.token, form: { name: "x", slug: slug(), fresh_time_limit: "60", stations: "[{" } });
    expect400(form, { stations: ["Value must be valid JSON."] });
  });

  it("stations and groups exist, each group belongs to its station, each appears once", async () => {
    expect400(await post(body({
      stations: [
        { station: 999999, timeseries_groups: [series(s.artaTemp)] },
        { station: s.arta, timeseries_groups: [series(999998), series(s.kombotiTemp), series(s.artaTemp), series(s.artaTemp)] },
        { station: s.arta, timeseries_groups: [] },
      ],
    })), {
      stations: [
        "stations[1].timeseries_groups[3].timeseries_group: This time series group is already shown at this station.",
        "stations[2].station: This station is already in the synoptic group.",
      ],
    });
    expect400(await post(body({
      stations: [
        { station: 999999, timeseries_groups: [series(s.artaTemp)] },
        { station: s.arta, timeseries_groups: [series(999998), series(s.kombotiTemp), series(s.artaTemp)] },
      ],
    })), {
      stations: [
        'stations[0].station: Invalid pk "999999" - object does not exist.',
        'stations[1].timeseries_groups[0].timeseries_group: Invalid pk "999998" - object does not exist.',
        `stations[1].timeseries_groups[1].timeseries_group: Time series group ${s.kombotiTemp} does not belong to station ${s.arta}.`,
      ],
    });
  });

  it("limits, chart range and rate-of-change thresholds", async () => {
    const roc = (r: unknown) => body({ stations: [{ station: s.arta, timeseries_groups: [series(s.artaTemp, { rate_of_change: r })] }] });
    expect400(await post(body({ stations: [{ station: s.arta, timeseries_groups: [series(s.artaTemp, { low_limit: 5, high_limit: 4, default_chart_min: 3, default_chart_max: 3 })] }] })), {
      stations: [
        "stations[0].timeseries_groups[0]: low_limit must not be greater than high_limit.",
        "stations[0].timeseries_groups[0]: default_chart_min must be less than default_chart_max.",
      ],
    });
    // The limits of one series are checked even when another series' member does not parse (the site's form shows both at once).
    expect400(await post(body({ stations: [{ station: s.arta, timeseries_groups: [
      series(s.artaTemp, { low_limit: 5, high_limit: 4 }),
      series(s.artaRain, { rate_of_change: { thresholds: [{ delta_t: "10min", allowed_diff: 3 }, { delta_t: "1h" }] } }),
    ] }] })), {
      stations: [
        "stations[0].timeseries_groups[1].rate_of_change.thresholds[1].allowed_diff: This field is required.",
        "stations[0].timeseries_groups[0]: low_limit must not be greater than high_limit.",
      ],
    });
    expect400(await post(roc({ symmetric: true, thresholds: [] })), { stations: ["stations[0].timeseries_groups[0].rate_of_change.thresholds: At least one threshold is required."] });
    expect400(await post(roc({ thresholds: [{ delta_t: "10min" }] })), { stations: ["stations[0].timeseries_groups[0].rate_of_change.thresholds[0].allowed_diff: This field is required."] });
    expect400(await post(roc({ symmetric: true, thresholds: [{ delta_t: "1M", allowed_diff: 1 }, { delta_t: "10min", allowed_diff: -2 }, { delta_t: "1h", allowed_diff: 3 }, { delta_t: "60min", allowed_diff: 4 }] })), {
      stations: [
        'stations[0].timeseries_groups[0].rate_of_change.thresholds[0].delta_t: "1M" is in months or years; only minutes, hours and days are supported.',
        "stations[0].timeseries_groups[0].rate_of_change.thresholds[1].allowed_diff: With symmetric thresholds every allowed_diff must be greater than 0.",
        'stations[0].timeseries_groups[0].rate_of_change.thresholds: Each delta_t may appear only once ("1h" and "60min" are the same duration).',
      ],
    });
    const ok = await post(roc({ thresholds: [{ delta_t: "10min", allowed_diff: 2 }, { delta_t: "1h", allowed_diff: -5 }] }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.stations[0].timeseries_groups[0].rate_of_change).toEqual({ symmetric: false, thresholds: [{ delta_t: "10min", allowed_diff: 2 }, { delta_t: "1h", allowed_diff: -5 }] });
  });

  it("a group with private series only for those who may read its data", async () => {
    const secret = body({ stations: [{ station: s.secret, timeseries_groups: [series(s.secretStage)] }] });
    expect400(await post(secret), { stations: [`stations[0].timeseries_groups[0].timeseries_group: You may not read the data of time series group ${s.secretStage}, so you may not show it.`] });
    expect((await post(secret, viewer.token)).status).toBe(201);
    expect((await post(body({ stations: [{ station: s.secret, timeseries_groups: [series(s.secretStage)] }] }), admin.token)).status).toBe(201);
  });

  it("a refused request changes nothing", async () => {
    const g = (await created(owner.token)).json;
    expect((await http.put(`/api/synopticgroups/${g.id}/`, { token: owner.token, json: { ...body({ slug: g.slug }), name: "", stations: [] } })).status).toBe(400);
    expect((await http.get(`/api/synopticgroups/${g.id}/`)).json).toEqual(g);
  });
});

describe("latest/", () => {
  let id: number;
  const NOW_FRESH = 10 * 365 * 24 * 3600; // freshness in these tests: recent if within ten years

  beforeAll(async () => {
    id = (await created(admin.token, {
      fresh_time_limit: NOW_FRESH,
      stations: [
        { station: s.arta, timeseries_groups: [series(s.artaTemp, { title: "Temperature", high_limit: 21.2 }), series(s.artaRain, { low_limit: 0.2 })] },
        { station: s.komboti, timeseries_groups: [series(s.kombotiTemp, { low_limit: 0 })] },
        { station: s.secret, timeseries_groups: [series(s.secretStage, { high_limit: 3 })] },
      ],
    })).json.id;
  });

  it("each station at its last common date: the default series' value with the group's precision, status", async () => {
    const r = await http.get(`/api/synopticgroups/${id}/latest/`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual([
      {
        station: s.arta, name: "Arta", geom: "SRID=4326;POINT (20.98 39.16)", last_common_date: "2025-06-01T10:00:00Z", freshness: "recent",
        values: [
          // Checked (not Initial's 99) at 10:00 (not the later 25), 21.25 → 21.2 (ties to even); above 21.2.
          { timeseries_group: s.artaTemp, title: "Temperature", unit: "°C", value: 21.2, status: "high" },
          // No name: the variable is the title. 0.125 → 0.12 (even); below 0.2.
          { timeseries_group: s.artaRain, title: "Rain", unit: "mm", value: 0.12, status: "low" },
        ],
      },
      {
        station: s.komboti, name: "Komboti", geom: "SRID=4326;POINT (21.06071 39.09518)", last_common_date: "2025-06-01T12:00:00Z", freshness: "recent",
        values: [{ timeseries_group: s.kombotiTemp, title: "Air temperature", unit: "°C", value: null, status: "error" }],
      },
      {
        station: s.secret, name: "Secret gauge", geom: "SRID=4326;POINT (21.2 39.3)", last_common_date: "2025-06-01T10:00:00Z", freshness: "recent",
        values: [{ timeseries_group: s.secretStage, title: "Stage", unit: "m", value: null, status: "hidden" }],
      },
    ]);
  });

  it("private values for their data readers only", async () => {
    const hidden = { timeseries_group: s.secretStage, title: "Stage", unit: "m", value: null, status: "hidden" };
    const shown = { timeseries_group: s.secretStage, title: "Stage", unit: "m", value: 3.46, status: "high" };
    const secretOf = async (token?: string) => (await http.get(`/api/synopticgroups/${id}/latest/`, { token })).json[2].values[0];
    expect(await secretOf()).toEqual(hidden);
    expect(await secretOf(other.token)).toEqual(hidden);
    expect(await secretOf(viewer.token)).toEqual(shown);
    expect(await secretOf(admin.token)).toEqual(shown);
  });

  it("old when the last common date is older than the limit; no data is old; a value missing at the date is an error", async () => {
    const station = await f.station({ name: "Quiet" });
    const a = await f.group(station, { variableId: temperature, unitId: celsius, precision: 0 });
    const b = await f.group(station, { variableId: temperature, unitId: celsius });
    const empty = await f.group(station, { variableId: temperature, unitId: celsius });
    const ta = await f.series(a);
    const tb = await f.series(b);
    await f.series(empty);
    await f.addRecords(ta, [[iso(T0 - 600), 7.5], [iso(T0 + 600), 8]]);
    await f.addRecords(tb, [[iso(T0), 1]]);
    const fresh = Math.floor(Date.now() / 1000) - T0 + 60;
    const g = (await created(owner.token, { fresh_time_limit: fresh, stations: [{ station, timeseries_groups: [series(a), series(b), series(empty)] }, { station: s.komboti, timeseries_groups: [] }] })).json;
    const latest = async () => (await http.get(`/api/synopticgroups/${g.id}/latest/`)).json;
    let r = await latest();
    expect(r[0]).toMatchObject({ last_common_date: "2025-06-01T10:00:00Z", freshness: "recent" });
    // ta has no record at 10:00 (its records are at 09:50 and 10:10); the empty group has no series with records.
    expect(r[0].values.map((v: { value: number | null; status: string }) => [v.value, v.status])).toEqual([[null, "error"], [1, "ok"], [null, "error"]]);
    expect(r[1]).toMatchObject({ last_common_date: null, freshness: "old", values: [] });
    await http.patch(`/api/synopticgroups/${g.id}/`, { token: owner.token, json: { fresh_time_limit: fresh - 120 } });
    r = await latest();
    expect(r[0].freshness).toBe("old");
  });

  it("404 for a missing group; HEAD", async () => {
    expect((await http.get("/api/synopticgroups/999999/latest/")).json).toEqual(NOT_FOUND);
    const head = await http.head(`/api/synopticgroups/${id}/latest/`);
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });
});
