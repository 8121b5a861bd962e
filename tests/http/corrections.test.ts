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

/** Applies a correction and checks its answer, the bytes after it, and that its revert gives the bytes before back. */
async function roundTrip(s: Series, apply: () => Promise<TestResponse>, after: string, expectedAnswer?: Record<string, unknown>) {
  const before = await data(s);
  const answer = ok(await apply());
  if (expectedAnswer) expect(answer).toEqual({ ...expectedAnswer, correction: expect.any(Number) });
  expect(await data(s)).toBe(after);
  const revert = ok(await http.post(`${s.path}/corrections/${answer.correction}/revert/`, as(creator)));
  expect(revert.reverts).toBe(answer.correction);
  expect(await data(s)).toBe(before);
  return answer;
}

describe("DELETE data/ (more)", () => {
  it("deletes from start_date on, up to end_date, or every record with all=true", async () => {
    const s = await fresh();
    await roundTrip(s, () => http.delete(`${s.path}/data/?start_date=2024-01-01T01:20:00Z`, as(creator)), expected({ 8: undefined, 9: undefined }), { deleted: 2 });
    await roundTrip(s, () => http.delete(`${s.path}/data/?end_date=2024-01-01T02:00`, as(creator)), expected({ 0: undefined }), { deleted: 1 });
    await roundTrip(s, () => http.delete(`${s.path}/data/?all=true`, as(admin)), "", { deleted: 10 });
  });

  it("answers a range with no records with deleted 0 and no correction; a dry run deletes nothing", async () => {
    const s = await fresh();
    expect(ok(await http.delete(`${s.path}/data/?start_date=2030-01-01`, as(creator)))).toEqual({ deleted: 0, correction: null });
    expect(ok(await http.delete(`${s.path}/data/?all=true&dry_run=true`, as(creator)))).toEqual({ deleted: 10, correction: null });
    expect(await data(s)).toBe(expected());
    expect(ok(await http.get(`${s.path}/corrections/`, as(creator))).count).toBe(0);
  });

  it("refuses bad ranges and fields with DRF-style errors, changing nothing", async () => {
    const s = await fresh();
    const bad = async (query: string, body: unknown) => {
      const r = await http.delete(`${s.path}/data/${query}`, as(creator));
      expect({ status: r.status, body: r.json }).toEqual({ status: 400, body });
    };
    const DATETIME = "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].";
    await bad("", { non_field_errors: ["Give start_date, end_date or both, or all=true for every record."] });
    await bad("?start_date=&end_date=", { non_field_errors: ["Give start_date, end_date or both, or all=true for every record."] });
    await bad("?all=false", { non_field_errors: ["Give start_date, end_date or both, or all=true for every record."] });
    await bad("?start_date=2024-01-02&end_date=2024-01-01", { end_date: ["Must not be earlier than start_date."] });
    await bad("?start_date=2024-13-01", { start_date: [DATETIME] });
    await bad("?start_date=2024&end_date=yesterday", { start_date: [DATETIME], end_date: [DATETIME] });
    await bad("?all=maybe", { all: ["Must be a valid boolean."] });
    await bad("?all=true&start_date=2024-01-01", { all: ["Give either all=true or start_date and end_date, not both."] });
    await bad(`?all=true&comment=${"x".repeat(1001)}`, { comment: ["Ensure this field has no more than 1000 characters."] });
    await bad("?all=true&dry_run=perhaps", { dry_run: ["Must be a valid boolean."] });
    expect(await data(s)).toBe(expected());
    // A comment of exactly 1,000 characters (code points) is kept whole.
    const comment = "é".repeat(1000);
    const r = ok(await http.delete(`${s.path}/data/?all=true&comment=${encodeURIComponent(comment)}`, as(creator)));
    expect(ok(await http.get(`${s.path}/corrections/${r.correction}/`, as(creator))).comment).toBe(comment);
  });
});

describe("PATCH data/", () => {
  it("changes values and flags of the records named (naive timestamps in the display zone or in timezone), and the revert restores them", async () => {
    const s = await fresh();
    const answer = await roundTrip(s, () => http.patch(`${s.path}/data/`, {
      ...as(creator),
      json: { records: [{ timestamp: "2024-01-01 02:10", value: 20.5 }, { timestamp: "2024-01-01T00:30:00Z", value: "4", flags: "" }, { timestamp: "2024-01-01T02:50", flags: " CHECKED  X " }], comment: "field check" },
    }), expected({ 1: 20.5, 3: [4, ""], 5: [6.25, "CHECKED X"] }), { changed: 3 });
    const c = ok(await http.get(`${s.path}/corrections/${answer.correction}/`, as(creator)));
    expect(c).toMatchObject({ kind: "edit", start_date: at(1), end_date: at(5), records_before: 3, records_after: 3, comment: "field check", reverted_by: expect.any(Number) });
    await roundTrip(s, () => http.patch(`${s.path}/data/`, { ...as(creator), json: { records: [{ timestamp: "2024-01-01 00:10", value: null }], timezone: "UTC" } }),
      expected({ 1: null }), { changed: 1 });
  });

  it("takes records as JSON text in a form body; records left as they are change nothing and record no correction", async () => {
    const s = await fresh();
    await roundTrip(s, () => http.patch(`${s.path}/data/`, { ...as(creator), form: { records: JSON.stringify([{ timestamp: "2024-01-01 00:20", value: 30 }]), timezone: "UTC" } }),
      expected({ 2: 30 }), { changed: 1 });
    expect(ok(await http.patch(`${s.path}/data/`, { ...as(creator), json: { records: [{ timestamp: "2024-01-01T00:00Z", value: 1, flags: "" }] } }))).toEqual({ changed: 0, correction: null });
  });

  it("refuses the whole edit when a timestamp is not stored, naming it; a dry run gives the changed records", async () => {
    const s = await fresh();
    const r = await http.patch(`${s.path}/data/`, { ...as(creator), json: { records: [{ timestamp: "2024-01-01 02:15", value: 1 }, { timestamp: "2024-01-01 02:10", value: 3 }, { timestamp: "2024-01-01 05:00", flags: "X" }] } });
    expect({ status: r.status, body: r.json }).toEqual({ status: 400, body: { records: [
      "records[0].timestamp: There is no record at 2024-01-01T02:15:00+02:00.", "records[2].timestamp: There is no record at 2024-01-01T05:00:00+02:00.",
    ] } });
    expect(await data(s)).toBe(expected());
    const dry = ok(await http.patch(`${s.path}/data/`, { ...as(creator), json: { records: [{ timestamp: "2024-01-01 02:10", value: 20.5 }, { timestamp: "2024-01-01 02:30", flags: "" }], dry_run: true } }));
    expect(dry).toEqual({ changed: 2, records: [
      { timestamp: at(1), before: { value: 2, flags: "" }, after: { value: 20.5, flags: "" } },
      { timestamp: at(3), before: { value: null, flags: "MISS" }, after: { value: null, flags: "" } },
    ] });
    expect(await data(s)).toBe(expected());
    expect(ok(await http.get(`${s.path}/corrections/`, as(creator))).count).toBe(0);
  });

  it("refuses bad bodies with DRF-style errors", async () => {
    const s = await fresh();
    const bad = async (body: unknown, errors: unknown) => {
      const r = await http.patch(`${s.path}/data/`, { ...as(creator), json: body });
      expect({ status: r.status, body: r.json }).toEqual({ status: 400, body: errors });
    };
    const t = "2024-01-01 02:10";
    await bad({}, { records: ["This field is required."] });
    await bad({ records: [] }, { records: ["This list may not be empty."] });
    await bad({ records: 5 }, { records: ['Expected a list of items but got type "int".'] });
    await bad({ records: null }, { records: ["This field may not be null."] });
    await bad({ records: [5] }, { records: ["records[0]: Invalid data. Expected a dictionary, but got int."] });
    await bad({ records: [{}] }, { records: ["records[0].timestamp: This field is required."] });
    await bad({ records: [{ timestamp: t }] }, { records: ["records[0]: Give value, flags or both."] });
    await bad({ records: [{ timestamp: "x", value: 1 }] }, { records: ['records[0].timestamp: Invalid timestamp "x".'] });
    await bad({ records: [{ timestamp: "2024-01-01 02:10", value: "abc" }, { timestamp: t, flags: "a,b" }] }, { records: [
      "records[0].value: A valid number is required.", "records[1].flags: Flags may not contain commas, double quotes or control characters.",
    ] });
    await bad({ records: [{ timestamp: t, value: 1 }, { timestamp: "2024-01-01T00:10:00Z", value: 2 }] }, { records: ["records[1].timestamp: 2024-01-01T02:10:00+02:00 also appears in records[0]."] });
    await bad({ records: [{ timestamp: t, value: 1 }], timezone: "Mars/Olympus" }, { timezone: ['"Mars/Olympus" is not a valid choice.'] });
    await bad({ records: [{ timestamp: t, value: 1 }], comment: "y".repeat(1001) }, { comment: ["Ensure this field has no more than 1000 characters."] });
    await bad({ records: [{ timestamp: "1600-01-01 00:00", value: 1 }] }, { records: ['records[0].timestamp: Timestamp "1600-01-01 00:00" is outside 1680-01-01 to 2260-01-01.'] });
    expect(await data(s)).toBe(expected());
  });
});

describe("POST data/transform/", () => {
  // Records 1 to 5: 02:10 to 02:50 in the display zone.
  const range = { start_date: "2024-01-01 02:10", end_date: "2024-01-01T02:50" };

  it("offsets, scales, sets, empties, flags and unflags a range; each is undone exactly by its revert", async () => {
    const s = await fresh();
    const cases: [Record<string, unknown>, string, number][] = [
      [{ operation: "offset", amount: 0.1 }, expected({ 1: 2.1, 2: [3.6, "A"], 4: 5.1, 5: 6.35 }), 4],
      [{ operation: "scale", amount: "2" }, expected({ 1: 4, 2: [7, "A"], 4: 10, 5: 12.5 }), 4],
      [{ operation: "set", amount: 0 }, expected({ 1: 0, 2: [0, "A"], 3: [0, "MISS"], 4: 0, 5: 0 }), 5],
      [{ operation: "set", amount: null }, expected({ 1: null, 2: [null, "A"], 4: null, 5: null }), 4],
      [{ operation: "flag", flags: "X  A" }, expected({ 1: [2, "X A"], 2: [3.5, "A X"], 3: [null, "MISS X A"], 4: [5, "X A"], 5: [6.25, "X A"] }), 5],
      [{ operation: "unflag", flags: "A MISS", end_date: "2024-01-01 03:00" }, expected({ 2: [3.5, ""], 3: [null, ""], 6: [7, "B"] }), 3],
    ];
    for (const [body, after, changed] of cases) {
      const answer = await roundTrip(s, () => http.post(`${s.path}/data/transform/`, { ...as(creator), json: { ...range, ...body } }), after, { changed });
      const c = ok(await http.get(`${s.path}/corrections/${answer.correction}/`, as(creator)));
      expect(c.kind).toBe("transform");
      expect(c.records_before).toBe(changed);
    }
    expect(ok(await http.get(`${s.path}/corrections/?page_size=100`, as(creator))).results.map((c: { detail: string }) => c.detail).filter(Boolean).reverse())
      .toEqual(["offset 0.1", "scale 2", "set 0", "set empty", "flag X A", "unflag A MISS"]);
  });

  it("interpolates between the nearest records with a value around the range, rounded to the precision (ties to even)", async () => {
    const s = await fresh();
    // Between 00:10 (2) and 00:50 (6.25): 3.0625, 4.125, 5.1875.
    await roundTrip(s, () => http.post(`${s.path}/data/transform/`, { ...as(creator), json: { operation: "interpolate", start_date: "2024-01-01 02:20", end_date: "2024-01-01 02:40" } }),
      expected({ 2: [3.06, "A"], 3: [4.12, "MISS"], 4: 5.19 }), { changed: 3 });
    // The record before 00:40 is empty: from 00:20 (3.5) to 00:50 (6.25).
    await roundTrip(s, () => http.post(`${s.path}/data/transform/`, { ...as(creator), form: { operation: "interpolate", start_date: "2024-01-01T00:40:00Z", end_date: "2024-01-01T00:40:00Z" } }),
      expected({ 4: 5.33 }), { changed: 1 });
    const none = await http.post(`${s.path}/data/transform/`, { ...as(creator), json: { operation: "interpolate", start_date: "2024-01-01 02:00", end_date: "2024-01-01 02:10" } });
    expect({ status: none.status, body: none.json }).toEqual({ status: 400, body: { non_field_errors: ["There is no record with a value before start_date to interpolate from."] } });
    const after = await http.post(`${s.path}/data/transform/`, { ...as(creator), json: { operation: "interpolate", start_date: "2024-01-01 03:20", end_date: "2024-01-01 04:00" } });
    expect({ status: after.status, body: after.json }).toEqual({ status: 400, body: { non_field_errors: ["There is no record with a value after end_date to interpolate to."] } });
  });

  it("computes with the operands' decimals, as a person would (0.1 + 0.2 is 0.3)", async () => {
    const gid = await f.group(station, { precision: 17, variableId, unitId });
    const tid = await f.series(gid, { type: "Initial" });
    await f.addRecords(tid, [[at(0), 0.1]]);
    const path = `/api/stations/${station}/timeseriesgroups/${gid}/timeseries/${tid}`;
    ok(await http.post(`${path}/data/transform/`, { ...as(creator), json: { operation: "offset", amount: 0.2, all: true } }));
    // The double nearest 0.3, not 0.1 + 0.2 = 0.30000000000000004.
    expect((await http.get(`${path}/data/?timezone=UTC`)).text).toBe("2024-01-01 00:00,0.29999999999999999,\r\n");
  });

  it("gives the changed records on a dry run and changes nothing", async () => {
    const s = await fresh();
    const dry = ok(await http.post(`${s.path}/data/transform/`, { ...as(creator), json: { ...range, operation: "scale", amount: 2, end_date: "2024-01-01 02:30", dry_run: "true" } }));
    expect(dry).toEqual({ changed: 2, records: [
      { timestamp: at(1), before: { value: 2, flags: "" }, after: { value: 4, flags: "" } },
      { timestamp: at(2), before: { value: 3.5, flags: "A" }, after: { value: 7, flags: "A" } },
    ] });
    expect(await data(s)).toBe(expected());
    expect(ok(await http.get(`${s.path}/corrections/`, as(creator))).count).toBe(0);
  });

  it("refuses bad bodies with DRF-style errors, changing nothing", async () => {
    const s = await fresh();
    const bad = async (body: unknown, errors: unknown) => {
      const r = await http.post(`${s.path}/data/transform/`, { ...as(creator), json: body });
      expect({ status: r.status, body: r.json }).toEqual({ status: 400, body: errors });
    };
    const NO_RANGE = "Give start_date, end_date or both, or all=true for every record.";
    await bad({}, { operation: ["This field is required."], non_field_errors: [NO_RANGE] });
    await bad({ ...range, operation: "shift", amount: 1 }, { operation: ['"shift" is not a valid choice.'] });
    await bad({ ...range, operation: "offset" }, { amount: ["This field is required."] });
    await bad({ ...range, operation: "offset", amount: "abc" }, { amount: ["A valid number is required."] });
    await bad({ ...range, operation: "scale", amount: null }, { amount: ["This field may not be null."] });
    await bad({ ...range, operation: "offset", amount: "Infinity" }, { amount: ["A valid number is required."] });
    await bad({ ...range, operation: "flag" }, { flags: ["This field is required."] });
    await bad({ ...range, operation: "flag", flags: "  " }, { flags: ["This field may not be blank."] });
    await bad({ ...range, operation: "unflag", flags: 'a"b' }, { flags: ["Flags may not contain commas, double quotes or control characters."] });
    await bad({ operation: "interpolate", start_date: "2024-01-01" }, { end_date: ["This field is required."] });
    await bad({ operation: "interpolate", all: true }, { start_date: ["This field is required."], end_date: ["This field is required."], all: ["Give start_date and end_date instead: this operation needs a bounded range."] });
    await bad({ start_date: "2024-01-02", end_date: "2024-01-01", operation: "offset", amount: 1 }, { end_date: ["Must not be earlier than start_date."] });
    await bad({ ...range, operation: "offset", amount: 1, comment: "z".repeat(1001) }, { comment: ["Ensure this field has no more than 1000 characters."] });
    // A result that is not a finite number refuses the whole transform.
    await bad({ ...range, operation: "scale", amount: 1e308 }, { non_field_errors: [
      "The value at 2024-01-01T00:10:00Z is not a finite number.", "The value at 2024-01-01T00:20:00Z is not a finite number.",
      "The value at 2024-01-01T00:40:00Z is not a finite number.", "The value at 2024-01-01T00:50:00Z is not a finite number.",
    ] });
    // Flags within the limit that, added to a record's, exceed it (an upload of them would be refused).
    await bad({ ...range, operation: "flag", flags: "F".repeat(999) }, { non_field_errors: [
      "The flags at 2024-01-01T00:20:00Z are longer than 1000 characters.", "The flags at 2024-01-01T00:30:00Z are longer than 1000 characters.",
    ] });
    expect(await data(s)).toBe(expected());
  });
});

describe("POST data/ with mode=replace", () => {
  it("replaces every stored record from the first to the last uploaded timestamp; the dry run says how many; the revert restores", async () => {
    const s = await fresh();
    const text = "2024-01-01 02:15,15,\n2024-01-01 02:20,30,X\n2024-01-01 02:40,50,\n";
    const dry = await http.post(`${s.path}/data/`, { ...as(creator), form: { timeseries_records: text, mode: "replace", dry_run: "true" } });
    expect({ status: dry.status, text: dry.text }).toEqual({ status: 200, text: '{"count":3,"start_date":"2024-01-01T00:15:00Z","end_date":"2024-01-01T00:40:00Z","replaced":3}' });
    expect(await data(s)).toBe(expected());
    const r = await http.post(`${s.path}/data/`, { ...as(creator), json: { timeseries_records: text, mode: "replace", comment: "re-read the logger" } });
    expect({ status: r.status, text: r.text }).toEqual({ status: 204, text: "" });
    const lines = expected().split("\r\n");
    expect(await data(s)).toBe([lines[0], lines[1], "2024-01-01 00:15,15.00,", "2024-01-01 00:20,30.00,X", "2024-01-01 00:40,50.00,", ...lines.slice(5)].join("\r\n"));
    const [c] = ok(await http.get(`${s.path}/corrections/`, as(creator))).results;
    expect(c).toMatchObject({ kind: "replace", start_date: "2024-01-01T00:15:00Z", end_date: at(4), records_before: 3, records_after: 3, comment: "re-read the logger" });
    ok(await http.post(`${s.path}/corrections/${c.id}/revert/`, as(creator)));
    expect(await data(s)).toBe(expected());
    // An empty replacement changes nothing; an invalid mode is refused.
    expect((await http.post(`${s.path}/data/`, { ...as(creator), form: { timeseries_records: "", mode: "replace" } })).status).toBe(204);
    const wrong = await http.post(`${s.path}/data/`, { ...as(creator), form: { timeseries_records: text, mode: "merge" } });
    expect({ status: wrong.status, body: wrong.json }).toEqual({ status: 400, body: { mode: ['"merge" is not a valid choice.'] } });
  });
});

describe("uploads are corrections", () => {
  it("records appends, inserts and the legacy append as uploads, which revert like any correction", async () => {
    const password = "a-good-password-77";
    const uploader = await f.user({ password });
    const sid = await f.station({ name: "Uploads", displayTimezone: "Etc/GMT-2" }, uploader.id);
    const gid = await f.group(sid, { precision: 2, variableId, unitId });
    const tid = await f.series(gid, { type: "Initial" });
    const s = { path: `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}` } as Series;
    const post = (fields: Record<string, string>) => http.post(`${s.path}/data/`, { token: uploader.token, form: fields });
    expect((await post({ timeseries_records: "2024-01-01 02:00,1,\n2024-01-01 02:10,2,\n", comment: "first" })).status).toBe(204);
    expect((await post({ timeseries_records: "2024-01-01 01:50,0.5,\n", mode: "insert" })).status).toBe(204);
    const basic = { Authorization: `Basic ${Buffer.from(`${uploader.username}:${password}`).toString("base64")}` };
    expect((await http.put(`/api/tsdata/${tid}/`, { headers: basic, form: { timeseries_records: "2024-01-01 02:20,3,\n" } })).status).toBe(200);
    // A dry run and an upload of nothing are not corrections.
    expect((await post({ timeseries_records: "2024-01-01 02:30,4,\n", dry_run: "true" })).status).toBe(200);
    expect((await post({ timeseries_records: "" })).status).toBe(204);
    const history = ok(await http.get(`${s.path}/corrections/`, { token: uploader.token })).results;
    expect(history.map((c: Record<string, unknown>) => [c.kind, c.detail, c.start_date, c.end_date, c.records_before, c.records_after, c.comment])).toEqual([
      ["upload", "append", "2024-01-01T00:20:00Z", "2024-01-01T00:20:00Z", 0, 1, ""],
      ["upload", "insert", "2023-12-31T23:50:00Z", "2023-12-31T23:50:00Z", 0, 1, ""],
      ["upload", "append", "2024-01-01T00:00:00Z", "2024-01-01T00:10:00Z", 0, 2, "first"],
    ]);
    const all = "2024-01-01 01:50,0.50,\r\n2024-01-01 02:00,1.00,\r\n2024-01-01 02:10,2.00,\r\n2024-01-01 02:20,3.00,\r\n";
    expect((await http.get(`${s.path}/data/`)).text).toBe(all);
    // Reverting the insert deletes what it inserted.
    ok(await http.post(`${s.path}/corrections/${history[1].id}/revert/`, { token: uploader.token }));
    expect((await http.get(`${s.path}/data/`)).text).toBe(all.slice(all.indexOf("\n") + 1));
  });
});

describe("POST corrections/{cid}/revert/", () => {
  it("is refused (409, naming it) while a later correction of the same records stands; reverted in turn, they give the bytes back", async () => {
    const s = await fresh();
    const original = await data(s);
    const transform = async (body: Record<string, unknown>) => ok(await http.post(`${s.path}/data/transform/`, { ...as(creator), json: body }));
    const a = (await transform({ operation: "offset", amount: 1, start_date: "2024-01-01T00:10Z", end_date: "2024-01-01T00:50Z" })).correction;
    const afterA = await data(s);
    const b = (await transform({ operation: "flag", flags: "X", start_date: "2024-01-01T00:40Z", end_date: "2024-01-01T01:20Z" })).correction;
    // Another record: no conflict.
    const c = ok(await http.delete(`${s.path}/data/?start_date=2024-01-01T01:30Z`, as(creator))).correction;
    const refused = await http.post(`${s.path}/corrections/${a}/revert/`, as(creator));
    expect({ status: refused.status, body: refused.json }).toEqual({ status: 409, body: { detail: `Correction ${b} changed the same records after correction ${a} and is not reverted; revert it first.` } });
    const b2 = ok(await http.post(`${s.path}/data/transform/`, { ...as(creator), json: { operation: "unflag", flags: "A", start_date: "2024-01-01T00:20Z", end_date: "2024-01-01T00:20Z" } })).correction;
    const twice = await http.post(`${s.path}/corrections/${a}/revert/`, as(creator));
    expect(twice.json).toEqual({ detail: `Corrections ${b} and ${b2} changed the same records after correction ${a} and are not reverted; revert them first.` });
    const rb2 = ok(await http.post(`${s.path}/corrections/${b2}/revert/`, as(creator))).id;
    ok(await http.post(`${s.path}/corrections/${b}/revert/`, as(creator)));
    const ra = ok(await http.post(`${s.path}/corrections/${a}/revert/`, as(creator)));
    expect(ra).toMatchObject({ kind: "revert", reverts: a, records_before: 4, records_after: 4 });
    ok(await http.post(`${s.path}/corrections/${c}/revert/`, as(creator)));
    expect(await data(s)).toBe(original);
    // A reverted correction is not reverted again; a revert is reverted (A again).
    const again = await http.post(`${s.path}/corrections/${a}/revert/`, as(creator));
    expect({ status: again.status, body: again.json }).toEqual({ status: 409, body: { detail: `Correction ${a} was already reverted by correction ${ra.id}.` } });
    expect((await http.post(`${s.path}/corrections/${rb2}/revert/`, as(creator))).status).toBe(409);
    ok(await http.post(`${s.path}/corrections/${ra.id}/revert/`, as(creator)));
    expect(await data(s)).toBe(afterA);
  });

  it("names the revert of a revert that applied a later correction again", async () => {
    const s = await fresh();
    const edit = async (value: number) => ok(await http.patch(`${s.path}/data/`, { ...as(creator), json: { records: [{ timestamp: at(2), value }] } })).correction;
    const a = await edit(5);
    const b = await edit(7);
    const rb = ok(await http.post(`${s.path}/corrections/${b}/revert/`, as(creator))).id;
    // B and its revert cancel out: A can be reverted (as a dry run here).
    expect(ok(await http.post(`${s.path}/corrections/${a}/revert/`, { ...as(creator), json: { dry_run: true } })).changed).toBe(1);
    const rrb = ok(await http.post(`${s.path}/corrections/${rb}/revert/`, as(creator))).id;
    const refused = await http.post(`${s.path}/corrections/${a}/revert/`, as(creator));
    expect({ status: refused.status, body: refused.json }).toEqual({ status: 409, body: { detail: `Correction ${rrb} changed the same records after correction ${a} and is not reverted; revert it first.` } });
    ok(await http.post(`${s.path}/corrections/${rrb}/revert/`, as(creator)));
    ok(await http.post(`${s.path}/corrections/${a}/revert/`, as(creator)));
    expect(await data(s)).toBe(expected({}));
  });

  it("is refused (409) when the records changed by a write outside the history; a dry run gives the records it would restore", async () => {
    const s = await fresh();
    const deleted = ok(await http.delete(`${s.path}/data/?start_date=2024-01-01T00:30Z&end_date=2024-01-01T00:30Z`, as(creator))).correction;
    const dry = ok(await http.post(`${s.path}/corrections/${deleted}/revert/`, { ...as(creator), json: { dry_run: true } }));
    expect(dry).toEqual({ changed: 1, records: [{ timestamp: at(3), before: null, after: { value: null, flags: "MISS" } }] });
    expect(await data(s)).toBe(expected({ 3: undefined }));
    // A write of the records store that is not a correction (as a process's or a replication's).
    await f.addRecords(s.tid, [[at(3), 42, ""]]);
    const r = await http.post(`${s.path}/corrections/${deleted}/revert/`, as(creator));
    expect({ status: r.status, body: r.json }).toEqual({ status: 409, body: { detail: "The records changed since by a write that is not in the history (an automatic process or a replication); the correction cannot be reverted exactly." } });
    expect(await data(s)).toBe(expected({ 3: [42, ""] }));
  });

  it("answers 404 for a correction of another series or none, 400 for a long comment", async () => {
    const s = await fresh();
    const t = await fresh();
    const c = ok(await http.delete(`${t.path}/data/?all=true`, as(creator))).correction;
    expect((await http.post(`${s.path}/corrections/${c}/revert/`, as(creator))).json).toEqual({ detail: "Not found." });
    expect((await http.post(`${s.path}/corrections/999999/revert/`, as(creator))).status).toBe(404);
    expect((await http.get(`${s.path}/corrections/${c}/`, as(creator))).status).toBe(404);
    // The correction is an object of the path: 404 before the permission (api.md §1.7), for everyone.
    for (const token of [undefined, other.token]) {
      expect((await http.post(`${s.path}/corrections/999999/revert/`, { token })).json).toEqual({ detail: "Not found." });
      expect((await http.get(`${s.path}/corrections/999999/`, { token })).json).toEqual({ detail: "Not found." });
      expect((await http.post(`${s.path}/corrections/${c}/revert/`, { token })).status).toBe(404);
    }
    const long = await http.post(`${t.path}/corrections/${c}/revert/`, { ...as(creator), form: { comment: "c".repeat(1001) } });
    expect({ status: long.status, body: long.json }).toEqual({ status: 400, body: { comment: ["Ensure this field has no more than 1000 characters."] } });
  });
});

describe("GET corrections/", () => {
  it("pages newest first, and `after` keeps the later ones", async () => {
    const s = await fresh();
    const ids: number[] = [];
    for (let k = 0; k < 5; k++) ids.push(ok(await http.delete(`${s.path}/data/?start_date=${at(k)}&end_date=${at(k)}`, as(creator))).correction);
    const page1 = ok(await http.get(`${s.path}/corrections/?page_size=2`, as(creator)));
    expect(page1.count).toBe(5);
    expect(page1.results.map((c: { id: number }) => c.id)).toEqual([ids[4], ids[3]]);
    expect(page1.next).toBe(`${server.url}${s.path}/corrections/?page_size=2&page=2`);
    const last = ok(await http.get(`${s.path}/corrections/?page_size=2&page=3`, as(creator)));
    expect(last.results.map((c: { id: number }) => c.id)).toEqual([ids[0]]);
    expect(ok(await http.get(`${s.path}/corrections/?after=${ids[2]}`, as(creator))).results.map((c: { id: number }) => c.id)).toEqual([ids[4], ids[3]]);
    expect((await http.get(`${s.path}/corrections/?page=9`, as(creator))).json).toEqual({ detail: "Invalid page." });
    expect((await http.get(`${s.path}/corrections/?after=x`, as(creator))).json).toEqual({ after: ["A valid integer is required."] });
    expect((await http.get(`${s.path}/corrections/?after=-1`, as(creator))).json).toEqual({ after: ["Ensure this value is greater than or equal to 0."] });
  });
});

describe("permissions and paths", () => {
  it("lets the station's editors correct (anonymous 401, another user 403, a data viewer 403), on both path forms", async () => {
    const s = await fresh();
    const c = ok(await http.delete(`${s.path}/data/?start_date=${at(9)}`, as(creator))).correction;
    const calls: [string, (base: string, token?: string) => Promise<TestResponse>][] = [
      ["DELETE data/", (base, token) => http.delete(`${base}/data/?start_date=${at(8)}&end_date=${at(8)}`, { token })],
      ["PATCH data/", (base, token) => http.patch(`${base}/data/`, { token, json: { records: [{ timestamp: at(0), value: 100 }] } })],
      ["POST data/transform/", (base, token) => http.post(`${base}/data/transform/`, { token, json: { operation: "flag", flags: "P", all: true } })],
      ["GET corrections/", (base, token) => http.get(`${base}/corrections/`, { token })],
      ["GET corrections/{cid}/", (base, token) => http.get(`${base}/corrections/${c}/`, { token })],
      ["POST revert/", (base, token) => http.post(`${base}/corrections/${c}/revert/`, { token })],
    ];
    for (const [name, call] of calls) {
      const anonymous = await call(s.path);
      expect({ name, status: anonymous.status, body: anonymous.json, challenge: anonymous.headers.get("www-authenticate") })
        .toEqual({ name, status: 401, body: { detail: "Authentication credentials were not provided." }, challenge: "Token" });
      for (const user of [other, viewer]) {
        const r = await call(s.path, user.token);
        expect({ name, status: r.status, body: r.json }).toEqual({ name, status: 403, body: { detail: "You do not have permission to perform this action." } });
      }
      // A wrong path is 404 for everyone, before the permission.
      expect({ name, status: (await call(`/api/stations/${station}/timeseriesgroups/${s.gid + 1000}/timeseries/${s.tid}`)).status }).toEqual({ name, status: 404 });
    }
    expect(await data(s)).toBe(expected({ 9: undefined }));
    // The older path form and the singular group alias; a maintainer and a superuser.
    ok(await http.delete(`${s.older}/data/?start_date=${at(8)}&end_date=${at(8)}`, as(maintainer)));
    ok(await http.patch(`/api/stations/${station}/timeseriesgroup/${s.gid}/timeseries/${s.tid}/data/`, { ...as(admin), json: { records: [{ timestamp: at(0), value: 100 }] } }));
    ok(await http.post(`${s.older}/data/transform/`, { ...as(maintainer), json: { operation: "flag", flags: "P", end_date: at(1) } }));
    expect(await data(s)).toBe(expected({ 0: [100, "P"], 1: [2, "P"], 8: undefined, 9: undefined }));
    const history = ok(await http.get(`${s.older}/corrections/`, as(maintainer))).results;
    expect(history.map((x: { kind: string; user: string }) => [x.kind, x.user])).toEqual([
      ["transform", maintainer.username], ["edit", admin.username], ["delete", maintainer.username], ["delete", creator.username],
    ]);
    for (const x of history) ok(await http.post(`${s.older}/corrections/${x.id}/revert/`, as(admin)));
    expect(await data(s)).toBe(expected());
    const elsewhere = await f.station({ name: "Elsewhere" }, creator.id);
    expect((await http.get(`/api/stations/${elsewhere}/timeseries/${s.tid}/corrections/`, as(creator))).status).toBe(404);
    expect((await http.options(`${s.path}/data/`)).headers.get("allow")).toBe("GET, HEAD, POST, PATCH, DELETE, OPTIONS");
  });
});

describe("concurrent corrections and uploads to one series", () => {
  it("serializes them: nothing is lost, and reverting every one, newest first, gives the bytes back", async () => {
    const rows: [number | null, string][] = Array.from({ length: 200 }, (_, k) => [k, ""]);
    const gid = await f.group(station, { precision: 2, variableId, unitId });
    const tid = await f.series(gid, { type: "Initial" });
    await f.addRecords(tid, rows.map(([v], k) => [at(k), v]));
    const s = { path: `/api/stations/${station}/timeseriesgroups/${gid}/timeseries/${tid}` } as Series;
    const original = await data(s);
    const work: (() => Promise<TestResponse>)[] = [];
    // Each adds 1 to records 0–49 (read in its transaction: a lost update would show).
    for (let k = 0; k < 8; k++) work.push(() => http.post(`${s.path}/data/transform/`, { ...as(creator), json: { operation: "offset", amount: 1, end_date: at(49) } }));
    for (let k = 0; k < 8; k++) work.push(() => http.delete(`${s.path}/data/?start_date=${at(100 + k)}&end_date=${at(100 + k)}`, as(creator)));
    for (let k = 0; k < 8; k++) work.push(() => http.patch(`${s.path}/data/`, { ...as(maintainer), json: { records: [{ timestamp: at(150 + k), flags: `P${k}` }] } }));
    for (let k = 0; k < 8; k++) work.push(() => http.post(`${s.path}/data/`, { ...as(creator), form: { timeseries_records: `${at(300 + k)},${k},\n`, mode: "insert" } }));
    const results = await Promise.all(work.map((w) => w()));
    expect(results.map((r) => r.status).sort()).toEqual([...Array(24).fill(200), ...Array(8).fill(204)].sort());
    const model = rows.map(([v], k) => (k < 50 ? `${at(k).slice(0, 10)} ${at(k).slice(11, 16)},${(v! + 8).toFixed(2)},\r\n`
      : k >= 100 && k < 108 ? "" : `${at(k).slice(0, 10)} ${at(k).slice(11, 16)},${v!.toFixed(2)},${k >= 150 && k < 158 ? `P${k - 150}` : ""}\r\n`)).join("")
      + Array.from({ length: 8 }, (_, k) => `${at(300 + k).slice(0, 10)} ${at(300 + k).slice(11, 16)},${k.toFixed(2)},\r\n`).join("");
    expect(await data(s)).toBe(model);
    const history = ok(await http.get(`${s.path}/corrections/?page_size=100`, as(creator))).results;
    expect(history).toHaveLength(32);
    for (const c of history) ok(await http.post(`${s.path}/corrections/${c.id}/revert/`, as(creator)));
    expect(await data(s)).toBe(original);
  });
});
