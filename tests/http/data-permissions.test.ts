/**
 * The private-data rule (api.md §8, §15) on data/, bottom/ and chart/ under every path form,
 * for GET and HEAD, and the upload permission (editors only), from the specification.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, FORBIDDEN, type TestResponse, UNAUTHENTICATED } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;

let superuser: f.TestUser;
let creator: f.TestUser;
let maintainer: f.TestUser;
let viewer: f.TestUser;
let stranger: f.TestUser;
/** maintainer and data viewer of another station */
let elsewhere: f.TestUser;
let sid: number;
let gid: number;
let privateTs: number;
let publicTs: number;


beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  superuser = await f.user({ superuser: true });
  creator = await f.user();
  maintainer = await f.user();
  viewer = await f.user();
  stranger = await f.user();
  elsewhere = await f.user();
  const vid = await f.variable("Temperature");
  const uid = await f.unit("°C", [vid]);
  sid = await f.station({ name: "Private", displayTimezone: "UTC", maintainers: [maintainer.id], dataViewers: [viewer.id] }, creator.id);
  await f.station({ name: "Other", maintainers: [elsewhere.id], dataViewers: [elsewhere.id] }, elsewhere.id);
  gid = await f.group(sid, { precision: 2, variableId: vid, unitId: uid });
  privateTs = await f.series(gid, { type: "Initial", publiclyAvailable: false });
  publicTs = await f.series(gid, { type: "Checked", publiclyAvailable: true });
  await f.addRecords(privateTs, [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:00Z", 2]]);
  await f.addRecords(publicTs, [["2019-01-01T00:00:00Z", 5]]);
});
afterAll(() => server?.stop());

const paths = (tid: number) => [
  `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}`,
  `/api/stations/${sid}/timeseriesgroup/${gid}/timeseries/${tid}`,
  `/api/stations/${sid}/timeseries/${tid}`,
];
const ENDPOINTS = ["data/", "data/?fmt=hts", "data/?fmt=hts2", "bottom/", "chart/"];
const METHODS = ["GET", "HEAD"] as const;

const call = (method: "GET" | "HEAD", path: string, token?: string) => (method === "GET" ? http.get(path, { token }) : http.head(path, { token }));

function expectDenied(r: TestResponse, method: "GET" | "HEAD", status: 401 | 403, where: string) {
  const body = method === "HEAD" ? "" : status === 401 ? UNAUTHENTICATED : FORBIDDEN;
  expect({ where, status: r.status, body: r.text }).toEqual({ where, status, body });
  if (status === 401) expect([where, r.headers.get("www-authenticate")]).toEqual([where, "Token"]);
  else expect([where, r.headers.get("www-authenticate")]).toEqual([where, null]);
}

describe("reading a private series (api.md §8, §15.2, §15.3)", () => {
  it.each(METHODS)("%s by anonymous: 401 with WWW-Authenticate: Token and the exact body, on every path", async (method) => {
    for (const p of paths(privateTs)) for (const e of ENDPOINTS) expectDenied(await call(method, `${p}/${e}`), method, 401, `${method} ${p}/${e}`);
  });

  it.each(METHODS)("%s by another user: 403 with the exact body, on every path", async (method) => {
    for (const who of [stranger, elsewhere]) {
      for (const p of paths(privateTs)) for (const e of ENDPOINTS) expectDenied(await call(method, `${p}/${e}`, who.token), method, 403, `${method} ${p}/${e}`);
    }
  });

  const readers = () => ({ viewer, maintainer, creator, superuser });
  it.each(["viewer", "maintainer", "creator", "superuser"] as const)("GET and HEAD by the %s: 200 on every path", async (role) => {
    const who = readers()[role];
    for (const p of paths(privateTs)) {
      for (const e of ENDPOINTS) {
        const g = await call("GET", `${p}/${e}`, who.token);
        expect({ where: `${p}/${e}`, status: g.status }).toEqual({ where: `${p}/${e}`, status: 200 });
        const h = await call("HEAD", `${p}/${e}`, who.token);
        expect({ where: `HEAD ${p}/${e}`, status: h.status, body: h.text }).toEqual({ where: `HEAD ${p}/${e}`, status: 200, body: "" });
      }
      expect((await http.get(`${p}/data/`, { token: who.token })).text).toBe("2020-01-01 00:00,1.00,\r\n2020-01-01 00:10,2.00,\r\n");
      expect((await http.get(`${p}/bottom/`, { token: who.token })).text).toBe("2020-01-01 00:10,2.00,");
      expect((await http.get(`${p}/chart/?points=1`, { token: who.token })).text).toBe('[{"timestamp":1577837100,"min":"1.00","max":"2.00","mean":"1.50"}]');
    }
  });

  it("applies the rule before validating the parameters", async () => {
    const p = paths(privateTs)[0];
    expectDenied(await http.get(`${p}/data/?fmt=xml`), "GET", 401, "anonymous fmt=xml");
    expectDenied(await http.get(`${p}/chart/?points=0`, { token: stranger.token }), "GET", 403, "stranger points=0");
    expectDenied(await http.get(`${p}/data/?start_date=hello`, { token: stranger.token }), "GET", 403, "stranger start_date=hello");
    expect((await http.get(`${p}/data/?fmt=xml`, { token: viewer.token })).status).toBe(400);
  });

  it("looks up the path before applying the rule (404 for everyone)", async () => {
    const wrong = `/api/stations/${sid}/timeseriesgroups/${gid + 100000}/timeseries/${privateTs}/data/`;
    for (const token of [undefined, stranger.token, superuser.token]) {
      const r = await http.get(wrong, { token });
      expect({ status: r.status, body: r.text }).toEqual({ status: 404, body: '{"detail":"Not found."}' });
    }
  });

  it("answers an invalid token with 401 even on a public series", async () => {
    const r = await http.get(`${paths(publicTs)[0]}/data/`, { token: "f".repeat(40) });
    expect({ status: r.status, body: r.text }).toEqual({ status: 401, body: '{"detail":"Invalid token."}' });
    expect(r.headers.get("www-authenticate")).toBe("Token");
  });
});

describe("reading a public series", () => {
  it.each(METHODS)("%s is allowed to everyone on every path", async (method) => {
    for (const token of [undefined, stranger.token, viewer.token]) {
      for (const p of paths(publicTs)) {
        for (const e of ENDPOINTS) {
          const r = await call(method, `${p}/${e}`, token);
          expect({ where: `${method} ${p}/${e}`, status: r.status }).toEqual({ where: `${method} ${p}/${e}`, status: 200 });
        }
      }
    }
    expect((await http.get(`${paths(publicTs)[2]}/data/`)).text).toBe("2019-01-01 00:00,5.00,\r\n");
  });
});

describe("metadata of a private series stays public (api.md §15.2)", () => {
  it("the series object, in both shapes", async () => {
    for (const token of [undefined, stranger.token]) {
      const r = await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${privateTs}/`, { token });
      expect(r.status).toBe(200);
      expect(r.json.id).toBe(privateTs);
      expect(r.json.publicly_available).toBe(false);
      const older = await http.get(`/api/stations/${sid}/timeseries/${privateTs}/`, { token });
      expect(older.status).toBe(200);
      expect(older.json.id).toBe(privateTs);
      const list = await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/`, { token });
      expect(list.status).toBe(200);
      expect(list.json.results.map((s: { id: number }) => s.id)).toContain(privateTs);
    }
  });

  it("the group", async () => {
    const r = await http.get(`/api/stations/${sid}/timeseriesgroups/${gid}/`);
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(gid);
  });

  it("the station's last_update counts the private series", async () => {
    for (const token of [undefined, stranger.token]) {
      const r = await http.get(`/api/stations/${sid}/`, { token });
      expect(r.status).toBe(200);
      expect(r.json.last_update).toBe("2020-01-01T00:10:00Z");
    }
  });
});

describe("uploading (api.md §8.3, §15.2: editors only, whatever the flag)", () => {
  let next = Date.UTC(2021, 0, 1) / 1000;
  const line = () => `${new Date((next += 600) * 1000).toISOString().slice(0, 19)}Z,1,\n`;

  for (const which of ["private", "public"] as const) {
    describe(`to the ${which} series`, () => {
      const tid = () => (which === "private" ? privateTs : publicTs);

      it("anonymous: 401 with WWW-Authenticate: Token, on every path, and nothing stored", async () => {
        const before = (await http.get(`${paths(tid())[0]}/data/`, { token: superuser.token })).text;
        for (const p of paths(tid())) {
          for (const body of [{ timeseries_records: line() }, { timeseries_records: line(), dry_run: "true" }] as Record<string, string>[]) {
            const r = await http.post(`${p}/data/`, { form: body });
            expectDenied(r, "GET", 401, `POST ${p}/data/`);
          }
        }
        expect((await http.get(`${paths(tid())[0]}/data/`, { token: superuser.token })).text).toBe(before);
      });

      it.each(["stranger", "viewer", "elsewhere"] as const)("the %s: 403, on every path, dry run included, and nothing stored", async (role) => {
        const who = { stranger, viewer, elsewhere }[role];
        const before = (await http.get(`${paths(tid())[0]}/data/`, { token: superuser.token })).text;
        for (const p of paths(tid())) {
          for (const body of [{ timeseries_records: line() }, { timeseries_records: line(), dry_run: "true" }] as Record<string, string>[]) {
            const r = await http.post(`${p}/data/`, { form: body, token: who.token });
            expectDenied(r, "GET", 403, `POST ${p}/data/ as ${role}`);
          }
        }
        expect((await http.get(`${paths(tid())[0]}/data/`, { token: superuser.token })).text).toBe(before);
      });

      it.each(["maintainer", "creator", "superuser"] as const)("the %s: 204 on every path, and the records are stored", async (role) => {
        const who = { maintainer, creator, superuser }[role];
        for (const p of paths(tid())) {
          const text = line();
          const r = await http.post(`${p}/data/`, { form: { timeseries_records: text, timezone: "UTC" }, token: who.token });
          expect({ where: `POST ${p}/data/ as ${role}`, status: r.status, body: r.text }).toEqual({ where: `POST ${p}/data/ as ${role}`, status: 204, body: "" });
          const bottom = await http.get(`${p}/bottom/`, { token: who.token });
          expect(bottom.text).toBe(`${text.slice(0, 10)} ${text.slice(11, 16)},1.00,`);
          const dry = await http.post(`${p}/data/`, { json: { timeseries_records: line(), dry_run: true }, token: who.token });
          expect(dry.status).toBe(200);
        }
      });
    });
  }
});
