import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { reloadSettings } from "@/lib/config";
import { withSession, type DriverContext } from "@/lib/telemetry/driver";
import { driverContext } from "@/lib/telemetry/fetch";
import { enhydris } from "@/lib/telemetry/types/enhydris";
import { meteoview2 } from "@/lib/telemetry/types/meteoview2";
import { json, startFake, type FakeVendor } from "@/tests/support/fake-vendors/base";
import { startFakeEnhydris } from "@/tests/support/fake-vendors/enhydris";
import { startFakeMeteoView2 } from "@/tests/support/fake-vendors/meteoview2";
import { driverContext as localContext, MB, telemetryConfig, telemetryFailure } from "@/tests/support/telemetry-drivers";

/**
 * What one session with a vendor may hold (the settings' contexts of lib/telemetry/fetch.ts):
 * a discovery reads at most the upload limit in all, over every page of a list; a discovery's
 * or a fetch's requests together have three request timeouts; a list read in pages stops once it
 * has more than 10,000 items (discover/ refuses it); and a failure where the vendor did not
 * answer at all is told apart from a wrong answer (a fetch then skips its remaining sensors).
 */
const SAVED = { ...process.env };
beforeAll(() => {
  // The settings' limits, small: 1 MB a answer, 1 s a request.
  process.env.ENHYDRIS_MAX_UPLOAD_SIZE = String(MB);
  process.env.ENHYDRIS_TELEMETRY_TIMEOUT = "1";
  process.env.ENHYDRIS_OUTBOUND_ALLOW = "127.0.0.1";
  reloadSettings();
});
afterAll(() => {
  for (const key of ["ENHYDRIS_MAX_UPLOAD_SIZE", "ENHYDRIS_TELEMETRY_TIMEOUT", "ENHYDRIS_OUTBOUND_ALLOW"]) {
    if (SAVED[key] === undefined) delete process.env[key];
    else process.env[key] = SAVED[key];
  }
  reloadSettings();
});

/** A discovery's context from the settings (the second argument names the session). */
const discoveryContext = () => (driverContext as (signal?: AbortSignal, what?: string) => DriverContext)(undefined, "discovery");

/**
 * An Enhydris whose list of stations goes on for `pages` pages of `perPage` stations (names of
 * `nameLength` characters), each page after `delayMs`: as a remote whose `next` never ends.
 */
async function longList(options: { pages: number; perPage: number; nameLength?: number; delayMs?: number }): Promise<FakeVendor> {
  let base = "";
  const vendor = await startFake(async (request) => {
    if (request.path !== "/api/stations/") return json({ detail: "Not found." }, 404);
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const n = Number(request.query.get("page") ?? 1);
    const name = "x".repeat(options.nameLength ?? 10);
    const results = Array.from({ length: options.perPage }, (_, k) => ({ id: n * options.perPage + k, name }));
    return json({ next: n < options.pages ? `${base}/api/stations/?page=${n + 1}` : null, results });
  });
  base = vendor.url;
  return vendor;
}

describe("a discovery", () => {
  let vendor: FakeVendor;
  afterEach(() => vendor.close());

  it("reads at most the upload limit in all, over every page of a list", async () => {
    // 40 pages of some 200 KB, each within the limit of an answer (1 MB), 8 MB in all.
    vendor = await longList({ pages: 40, perPage: 20, nameLength: 10_000 });
    const config = telemetryConfig({ deviceLocator: vendor.url });
    const error = await telemetryFailure(withSession(enhydris, config, discoveryContext(), (s) => s.listStations()));
    expect(error.message).toBe(`the answers of ${vendor.url.slice(7)} add up to more than 1 MB, the limit of one discovery`);
    expect(vendor.requests.length).toBeLessThanOrEqual(6);
  });

  it("has three request timeouts for all its requests", async () => {
    // Every page within the request's timeout (1 s), 12 s in all.
    vendor = await longList({ pages: 30, perPage: 5, delayMs: 400 });
    const config = telemetryConfig({ deviceLocator: vendor.url });
    const started = Date.now();
    const error = await telemetryFailure(withSession(enhydris, config, discoveryContext(), (s) => s.listStations()));
    expect(error.message).toBe(`the discovery reached its time limit of 3 s while waiting for ${vendor.url.slice(7)}`);
    expect(error.stop).toBe("time");
    expect(Date.now() - started).toBeLessThan(4500);
    expect(vendor.requests.length).toBeLessThan(10);
  });

  it("stops reading the pages of a list once it has more than 10,000 stations", async () => {
    vendor = await longList({ pages: 30, perPage: 4000 });
    const config = telemetryConfig({ deviceLocator: vendor.url });
    const stations = await withSession(enhydris, config, discoveryContext(), (s) => s.listStations());
    expect(stations).toHaveLength(10_001);
    expect(vendor.requests.map((r) => r.query.get("page"))).toEqual([null, "2", "3"]);
  });

  it("stops reading the time series of the groups once it has more than 10,000 sensors", async () => {
    const groups = Array.from({ length: 5 }, (_, g) => ({
      id: g + 1, name: `group ${g + 1}`,
      series: Array.from({ length: 3000 }, (_, k) => ({ id: (g + 1) * 10_000 + k, type: "Initial", name: "", time_step: "10min", records: [] })),
    }));
    vendor = await startFakeEnhydris({ pageSize: 3000, publicData: true, stations: [{ id: 42, name: "hobbiton", displayTimezone: "UTC", groups }] });
    const config = telemetryConfig({ deviceLocator: vendor.url, remoteStationId: "42" });
    const sensors = await withSession(enhydris, config, discoveryContext(), (s) => s.listSensors());
    expect(sensors).toHaveLength(10_001);
    // The groups, and the time series of the first four: the fifth is not asked for.
    expect(vendor.requests.map((r) => r.path)).toEqual([
      "/api/stations/42/timeseriesgroups/",
      ...[1, 2, 3, 4].map((g) => `/api/stations/42/timeseriesgroups/${g}/timeseries/`),
    ]);
  });
});

describe("a fetch", () => {
  let vendor: FakeVendor;
  afterEach(() => vendor.close());

  it("has three request timeouts for all its requests", async () => {
    vendor = await longList({ pages: 30, perPage: 5, delayMs: 400 });
    const config = telemetryConfig({ deviceLocator: vendor.url });
    const error = await telemetryFailure(withSession(enhydris, config, driverContext(), (s) => s.listStations()));
    expect(error.message).toBe(`the fetch reached its time limit of 3 s while waiting for ${vendor.url.slice(7)}`);
    expect(error.stop).toBe("time");
  });

  it("reads a whole list of many pages (a fetch's answers together have no limit but their time)", async () => {
    vendor = await longList({ pages: 8, perPage: 20, nameLength: 10_000 });
    const config = telemetryConfig({ deviceLocator: vendor.url });
    expect(await withSession(enhydris, config, driverContext(), (s) => s.listStations())).toHaveLength(160);
  });
});

describe("a request that gets no answer at all is told apart from a wrong answer", () => {
  let vendor: FakeVendor;
  let host: string;
  const config = () => telemetryConfig({ deviceLocator: vendor.url, password: "topsecretpassword", remoteStationId: "42" });
  const read = (context: Partial<DriverContext> = {}, extra = {}) =>
    telemetryFailure(withSession(enhydris, { ...config(), ...extra }, localContext({ timeoutMs: 300, ...context }), (s) => s.readingsAfter("421 4211", null)));
  afterEach(() => vendor.close());

  it("no answer: a timeout, a connection refused, a name that does not resolve, a TLS failure", async () => {
    vendor = await startFakeEnhydris();
    host = vendor.url.slice(7);
    vendor.fail("/data/", { kind: "hang" }, 1);
    const hang = await read();
    expect([hang.message, hang.stop]).toEqual([`the answer of ${host} timed out after 0.3 s`, "no-answer"]);
    vendor.fail("/data/", { kind: "drip", intervalMs: 50 }, 1);
    expect((await read()).stop).toBe("no-answer");
    vendor.fail("/data/", { kind: "cut" }, 1);
    expect((await read()).stop).toBe("no-answer");
    const unknown = await read({ resolve: async () => [] }, { deviceLocator: "http://vendor.invalid/" });
    expect([unknown.message, unknown.stop]).toEqual(["vendor.invalid could not be found (the name does not resolve)", "no-answer"]);
    // https to a server that speaks http: the TLS handshake fails.
    const tls = await read({}, { deviceLocator: vendor.url.replace("http:", "https:") });
    expect(tls.stop).toBe("no-answer");
    await vendor.close();
    const refused = await read();
    expect([refused.message, refused.stop]).toEqual([`${host} refused the connection`, "no-answer"]);
  });

  it("a wrong answer: an HTTP error, garbage, an answer too large, a refused redirect", async () => {
    vendor = await startFakeEnhydris();
    host = vendor.url.slice(7);
    vendor.fail("/data/", { kind: "status", status: 500, body: "database is down" }, 1);
    expect(await read()).toMatchObject({ message: `${host} answered HTTP 500: database is down`, stop: null });
    vendor.fail("/data/", { kind: "body", body: "this,is,not,valid,stuff" }, 1);
    expect((await read()).stop).toBeNull();
    vendor.fail("/data/", { kind: "huge", bytes: 4 * MB, declareLength: false }, 1);
    expect((await read()).stop).toBeNull();
    vendor.fail("/data/", { kind: "redirect", location: "http://127.0.0.2:9/steal" }, 1);
    expect((await read()).stop).toBeNull();
  });

  it("the same through another type (MeteoView2's POSTs)", async () => {
    const mv = await startFakeMeteoView2({ apiKey: "mv2-key-5519", readings: { "42a": [{ time: "2025-03-01T12:00", value: 1 }] } });
    vendor = mv;
    const mvConfig = telemetryConfig({ deviceLocator: mv.apiUrl, username: "alice@example.org", password: "mv2-key-5519", remoteStationId: "1852", dataTimezone: "UTC" });
    const run = () => telemetryFailure(withSession(meteoview2, mvConfig, localContext({ timeoutMs: 300 }), (s) => s.readingsAfter("42a", null)));
    mv.fail("/api/measurements", { kind: "hang" }, 1);
    expect((await run()).stop).toBe("no-answer");
    mv.fail("/api/measurements", { kind: "status", status: 500, body: "oops" }, 1);
    expect((await run()).stop).toBeNull();
  });
});
