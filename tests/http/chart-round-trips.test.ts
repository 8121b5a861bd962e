/**
 * Round trips of GET chart/ on PostgreSQL, in process: a hit takes one (the series: its version
 * names the cached body); a miss five (that one, then a read-only snapshot — begin, the series
 * again, its records, commit — so that the body and the version it is cached under are one
 * committed state; ADR 19). Counted so that a change that adds one shows.
 */
import { beforeAll, expect, it } from "vitest";
import { records } from "@/lib/records";
import { getChart } from "@/lib/series/data-api";
import { timeseriesData } from "@/lib/legacy/timeseries-data";
import * as f from "@/tests/support/fixtures";
import { recordPgQueries } from "@/tests/support/pg-queries";
import { DIALECT, inProcessDatabase } from "@/tests/support/server";

inProcessDatabase();
let sid: number, tid: number;
const T0 = Date.UTC(2020, 0, 1) / 1000;
beforeAll(async () => {
  sid = await f.station();
  tid = await f.series(await f.group(sid));
  const N = 20000;
  await records().write(tid, { timestamps: Float64Array.from({ length: N }, (_, i) => T0 + i * 600), values: Float64Array.from({ length: N }, (_, i) => i % 7), flags: Array.from({ length: N }, () => "") }, { mode: "append", validate: () => [] });
}, 60_000);

it.runIf(DIALECT === "postgres")("takes five round trips for a month chart that is not cached (one outside a read snapshot, four in it), one for one that is", async () => {
  const { sent, stop } = recordPgQueries();
  const bodies: string[] = [];
  try {
    for (const [day, trips] of [[3, 5], [4, 5], [3, 1]]) {
      sent.length = 0;
      const url = new URL(`http://x/api/stations/${sid}/timeseries/${tid}/chart/?start_date=2020-01-0${day}&end_date=2020-02-0${day}`);
      const ctx = { request: new Request(url), url, method: "GET", params: { sid, tid }, strings: {}, auth: { user: null }, input: async () => ({}) };
      const res = await getChart(ctx as unknown as Parameters<typeof getChart>[0]);
      expect(res.status).toBe(200);
      bodies.push(await res.text());
      expect(sent.length, sent.join("\n---\n")).toBe(trips);
      if (trips > 1) expect([sent[1], sent[4]]).toEqual(["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "COMMIT"]);
    }
  } finally {
    stop();
  }
  expect(bodies[2]).toBe(bodies[0]);
  expect(JSON.parse(bodies[0]).length).toBeGreaterThan(100);
});

it.runIf(DIALECT === "postgres")("answers a cached /timeseries/data/ in one round trip, the series' own columns read by key while its metadata is cached", async () => {
  const { sent, stop } = recordPgQueries();
  try {
    const bodies: string[] = [];
    for (let i = 0; i < 3; i++) {
      sent.length = 0;
      const url = new URL(`http://x/timeseries/data/?object_id=${tid}&last=month`);
      const ctx = { request: new Request(url), url, method: "GET", params: {}, strings: {}, auth: { user: null }, input: async () => ({}) };
      const res = await timeseriesData(ctx as unknown as Parameters<typeof timeseriesData>[0]);
      expect(res.status).toBe(200);
      bodies.push(await res.text());
      if (i > 0) {
        expect(sent.length, sent.join("\n---\n")).toBe(1);
        expect(sent[0]).not.toContain("station_maintainer");
      }
    }
    expect(bodies[2]).toBe(bodies[1]);
    expect(bodies[1]).toBe(bodies[0]);
  } finally {
    stop();
  }
});
