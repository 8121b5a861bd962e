/**
 * The conversation of the real Python `enhydris-api-client` (its end-to-end test and a data
 * logger's cycle), replayed request by request in the shape `requests` gives them: the
 * `token <key>` header and a form Content-Type on every request (GET and DELETE too), the login
 * body not URL-encoded, uploads as pandas' `to_csv` lines with `timezone=UTC`, and the answers
 * read the way the client and htimeseries read them (api.md §1.2, §2, §8; formats.md §2.3, §5).
 * The real client itself was run against the built server (README, "API overview").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type RequestOptions, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let owner: number;
let variable: number;
let unit: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true, password: "50%off my pass" });
  owner = await f.organization();
  variable = await f.variable("Temperature");
  unit = await f.unit("°C", [variable]);
});
afterAll(() => server?.stop());

const FORM = "application/x-www-form-urlencoded";

/** A requests.Session of the client: its headers on every request, form bodies encoded by requests. */
function session(token: string | null) {
  const headers = (): Record<string, string> => ({ "Content-Type": FORM, "Accept-Encoding": "gzip, deflate", ...(token ? { Authorization: `token ${token}` } : {}) });
  const send = (method: string, path: string, data?: Record<string, string | number> | string): Promise<TestResponse> => {
    const options: RequestOptions = { headers: headers() };
    if (typeof data === "string") options.body = data;
    else if (data) options.body = new URLSearchParams(Object.entries(data).map(([k, v]) => [k, String(v)])).toString();
    return http.request(method, path, options);
  };
  return { send, setToken: (key: string) => (token = key) };
}

/** The client's check_response: any error raises, and only with a body does the error reach the caller. */
function ok(r: TestResponse, expected?: number): TestResponse {
  expect(r.status, r.text).toBeLessThan(400);
  if (expected) expect(r.status).toBe(expected);
  return r;
}

/** htimeseries' reading of an HTS body: the Timezone header's "(UTC±hhmm)", then naive record lines. */
function readHts(text: string): { offset: string; records: string[] } {
  const [header, records] = text.split("\r\n\r\n");
  const zone = /^Timezone=.*\(UTC([+-]\d{4})\)$/m.exec(header);
  expect(zone, header).not.toBeNull();
  expect(header).toMatch(/^Variable=/m);
  return { offset: zone![1], records: records.split("\r\n").filter(Boolean) };
}

describe("the real client's end-to-end test (enhydris-api-client tests/test_e2e.py)", () => {
  it("logs in with an unencoded body and runs the whole session", async () => {
    const client = session(null);
    const login = ok(await client.send("POST", "/api/auth/login/", `username=${admin.username}&password=${admin.password}`));
    client.setToken(login.json.key);

    const station = { name: "My station", copyright_holder: "Joe User", copyright_years: "2019", geom: "POINT(20.94565 39.12102)", original_srid: 4326, owner };
    const sid = ok(await client.send("POST", "/api/stations/", { ...station, display_timezone: "Etc/GMT-1" })).json.id;
    ok(await client.send("PATCH", `/api/stations/${sid}/`, { name: "New name" }));
    ok(await client.send("PUT", `/api/stations/${sid}/`, { ...station, name: "Newer name" }));
    expect(ok(await client.send("GET", `/api/stations/${sid}/`)).json).toMatchObject({ name: "Newer name", display_timezone: "Etc/GMT-1" });

    const gid = ok(await client.send("POST", `/api/stations/${sid}/timeseriesgroups/`, {
      name: "My time series group", gentity: sid, variable, unit_of_measurement: unit, precision: 2,
    })).json.id;
    const series = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries`;
    const tid = ok(await client.send("POST", `${series}/`, { type: "Regularized", time_step: "10min", timeseries_group: gid })).json.id;
    const path = `${series}/${tid}`;

    // get_ts_end_date of an empty series: an empty body, which the client reads as None.
    expect(ok(await client.send("GET", `${path}/bottom/`)).text).toBe("");

    // post_tsdata: the HTimeseries (UTC+2, 08:00) converted to UTC and written by pandas.
    const lines = [11, 12, 13, 14, 15].map((v, i) => `2014-01-0${i + 1} 06:00:00+00:00,${v}.0,\n`).join("");
    const upload = ok(await client.send("POST", `${path}/data/`, { timeseries_records: lines, timezone: "UTC" }));
    expect(upload.text).toBe("");

    // get_ts_end_date: a naive timestamp, in the display zone or the one asked for.
    expect(ok(await client.send("GET", `${path}/bottom/`)).text).toBe("2014-01-05 07:00,15.00,");
    expect(ok(await client.send("GET", `${path}/bottom/?timezone=Etc%2FGMT-5`)).text).toBe("2014-01-05 11:00,15.00,");

    // read_tsdata with no dates: every record, in the display zone.
    const all = readHts(ok(await client.send("GET", `${path}/data/?fmt=hts`)).text);
    expect(all).toEqual({ offset: "+0100", records: [1, 2, 3, 4, 5].map((d) => `2014-01-0${d} 07:00,${10 + d}.00,`) });

    // read_tsdata with aware dates (isoformat, percent-encoded by requests) and a zone.
    const part = readHts(ok(await client.send("GET",
      `${path}/data/?fmt=hts&start_date=2014-01-03T08%3A00%3A00%2B02%3A00&end_date=2014-01-04T08%3A00%3A00%2B02%3A00&timezone=Etc%2FGMT-1`)).text);
    expect(part).toEqual({ offset: "+0100", records: ["2014-01-03 07:00,13.00,", "2014-01-04 07:00,14.00,"] });

    ok(await client.send("DELETE", `${path}/`), 204);
    expect((await client.send("GET", `${path}/`)).text).toBe('{"detail":"Not found."}');
    ok(await client.send("DELETE", `/api/stations/${sid}/`), 204);
    expect((await client.send("GET", `/api/stations/${sid}/`)).status).toBe(404);
  });

  it("refuses a wrong password with a 400 whose body the client puts in its HTTPError", async () => {
    const r = await session(null).send("POST", "/api/auth/login/", `username=${admin.username}&password=wrong`);
    expect({ status: r.status, body: r.text }).toEqual({ status: 400, body: '{"non_field_errors":["Unable to log in with provided credentials."]}' });
  });
});

describe("a data logger's cycle: get_ts_end_date, then post_tsdata of the newer records", () => {
  it("appends each batch after the end date it read, in a zone with daylight saving time", async () => {
    const client = session(admin.token);
    const sid = await f.station({ displayTimezone: "Etc/GMT-2" });
    const gid = await f.group(sid, { precision: 1, variableId: variable, unitId: unit });
    const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
    const path = `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}`;
    // Two cycles across the start of summer time in Athens (2020-03-29 03:00 local = 01:00Z).
    const batches = [["2020-03-29 00:40:00+00:00", "2020-03-29 00:50:00+00:00"], ["2020-03-29 01:00:00+00:00", "2020-03-29 01:10:00+00:00"]];
    const ends = ["", "2020-03-29 02:50,2.0,"];
    for (const [i, batch] of batches.entries()) {
      expect(ok(await client.send("GET", `${path}/bottom/?timezone=Europe%2FAthens`)).text).toBe(ends[i]);
      ok(await client.send("POST", `${path}/data/`, { timeseries_records: batch.map((t, j) => `${t},${j + 1}.0,\n`).join(""), timezone: "UTC" }), 204);
    }
    expect(ok(await client.send("GET", `${path}/bottom/?timezone=Europe%2FAthens`)).text).toBe("2020-03-29 04:10,2.0,");
    // A batch that overlaps what is stored is refused with a body (the logger logs it and retries).
    const again = await client.send("POST", `${path}/data/`, { timeseries_records: "2020-03-29 01:10:00+00:00,9.0,\n", timezone: "UTC" });
    expect({ status: again.status, body: again.json }).toEqual({
      status: 400, body: { timeseries_records: ["line 1: 2020-03-29T01:10:00+00:00 is not later than the last stored record (2020-03-29T01:10:00+00:00)"] },
    });
  });
});
