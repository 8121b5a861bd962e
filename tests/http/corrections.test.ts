/**
 * Corrections of stored records (corrections.md §1) over HTTP, on the dialect under test: each
 * operation's exact data/ bytes after it and after its revert (equal to before), the history,
 * dry runs, the DRF-style errors, permissions, both path forms and body types, and concurrent
 * corrections and uploads to one series.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";

let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let creator: f.TestUser;
let maintainer: f.TestUser;
let viewer: f.TestUser;
let other: f.TestUser;
let variableId: number;
let unitId: number;
let station: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  admin = await f.user({ superuser: true });
  creator = await f.user();
  maintainer = await f.user();
  viewer = await f.user();
  other = await f.user();
  variableId = await f.variable("Stage");
  unitId = await f.unit("m", [variableId]);
  // Two hours east of UTC: naive dates are read there, data/ writes its timestamps there.
  station = await f.station({ name: "Corrected", displayTimezone: "Etc/GMT-2", maintainers: [maintainer.id], dataViewers: [viewer.id] }, creator.id);
});
afterAll(() => server?.stop());

interface Series { sid: number; gid: number; tid: number; path: string; older: string }

/** Ten-minute records from 2024-01-01 00:00 UTC: [value, flags] each (null: empty). */
const ROWS: [number | null, string][] = [
  [1, ""], [2, ""], [3.5, "A"], [null, "MISS"], [5, ""], [6.25, ""], [7, "A B"], [8, ""], [9, ""], [10, ""],
];
const T0 = Date.UTC(2024, 0, 1) / 1000;
const iso = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");
const at = (k: number) => iso(T0 + 600 * k);

async function fresh(rows = ROWS, precision = 2): Promise<Series> {
  const gid = await f.group(station, { precision, variableId, unitId, name: "Stage" });
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  if (rows.length) await f.addRecords(tid, rows.map(([v, fl], k) => [at(k), v, fl]));
  return { sid: station, gid, tid, path: `/api/stations/${station}/timeseriesgroups/${gid}/timeseries/${tid}`, older: `/api/stations/${station}/timeseries/${tid}` };
}

function ok(r: TestResponse, status = 200) {
  expect(r.status, r.text).toBe(status);
  return r.json;
}

const data = async (s: Series) => {
  const r = await http.get(`${s.path}/data/?timezone=UTC`);
  expect(r.status).toBe(200);
  return r.text;
};

/** The CSV lines of ROWS as data/ writes them in UTC with precision 2, with `change` applied (a value, or [value, flags], or undefined to drop). */
function expected(change: Record<number, number | null | [number | null, string] | undefined> = {}): string {
  return ROWS.map(([v, fl], k): string | null => {
    let value = v;
    let flags = fl;
    if (k in change) {
      const c = change[k];
      if (c === undefined) return null;
      if (Array.isArray(c)) [value, flags] = c;
      else value = c;
    }
    return `${at(k).slice(0, 10)} ${at(k).slice(11, 16)},${value === null ? "" : value.toFixed(2)},${flags}\r\n`;
  }).filter((line) => line !== null).join("");
}

const as = (user: f.TestUser) => ({ token: user.token });

describe("DELETE data/", () => {
  it("deletes an inclusive range (naive dates in the display zone), records the correction, and its revert restores the bytes", async () => {
    const s = await fresh();
    const before = await data(s);
    expect(before).toBe(expected());
    // 02:20 to 02:40 at UTC+2 is 00:20 to 00:40 UTC: records 2, 3 and 4.
    const r = ok(await http.delete(`${s.path}/data/?start_date=2024-01-01T02:20&end_date=2024-01-01T02:40&comment=${encodeURIComponent("logger reset")}`, as(creator)));
    expect(Object.keys(r)).toEqual(["deleted", "correction"]);
    expect(r.deleted).toBe(3);
    expect(await data(s)).toBe(expected({ 2: undefined, 3: undefined, 4: undefined }));
    const history = ok(await http.get(`${s.path}/corrections/`, as(creator)));
    expect(history.count).toBe(1);
    const c = history.results[0];
    expect(Object.keys(c)).toEqual(["id", "user", "created", "kind", "detail", "start_date", "end_date", "records_before", "records_after", "comment", "reverts", "reverted_by"]);
    expect(c).toEqual({
      id: r.correction, user: creator.username, created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), kind: "delete", detail: "",
      start_date: at(2), end_date: at(4), records_before: 3, records_after: 0, comment: "logger reset", reverts: null, reverted_by: null,
    });
    const revert = ok(await http.post(`${s.path}/corrections/${r.correction}/revert/`, { ...as(maintainer), json: { comment: "was fine" } }));
    expect(revert).toMatchObject({ kind: "revert", user: maintainer.username, reverts: r.correction, reverted_by: null, records_before: 0, records_after: 3, comment: "was fine" });
    expect(await data(s)).toBe(before);
    const after = ok(await http.get(`${s.path}/corrections/`, as(creator)));
    expect(after.results.map((x: { id: number; reverted_by: number | null }) => [x.id, x.reverted_by])).toEqual([[revert.id, null], [r.correction, revert.id]]);
  });
});
