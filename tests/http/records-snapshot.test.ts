/**
 * One response, one committed state (docs/decisions/0019-records-in-blocks.md, "Later"): while
 * one writer changes a series, readers of data/ (CSV and HTS), the legacy /api/tsdata/ and the
 * legacy statistics each see one state that was written, the one their strong ETag names
 * (formats.md §9.3), with an HTS `Count=` equal to the record lines sent, and never a 500.
 *
 * The series holds a year of ten-minute records (more than one chunk of a read, and many fetches
 * of day blocks). Each round of the writer sets the first, a middle and the last record to a new
 * marker 1000+k in one PATCH, and deletes 13 records (odd rounds) or reverts that deletion (even
 * rounds); after each write it notes the version it made (HEAD data/). A torn read shows markers
 * of two rounds, or a count that is not its markers' state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, LINGER_IDLE_MS, withReadSnapshot } from "@/lib/db";
import { snapshotLimits } from "@/lib/db/snapshot";
import { records, RecordsChangedDuringRead, type RecordChunk } from "@/lib/records";
import { PostgresBlockStore } from "@/lib/records/postgres-blocks";
import { DAY } from "@/lib/records/types";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { DIALECT, startServer, type TestServer } from "@/tests/support/server";

const ROUNDS = 40;
const READERS = 4;
const DAY0 = Date.UTC(2025, 0, 1) / 1000 - 7200; // 2025-01-01 00:00 in Etc/GMT-2
const N = 365 * 144;
/** Local naive time (Etc/GMT-2) of an epoch second, as the CSV writes it. */
const local = (t: number) => new Date((t + 7200) * 1000).toISOString().slice(0, 16).replace("T", " ");
const MARKERS = [0, 181 * 144, N - 1].map((i) => local(DAY0 + i * 600));
/** The 13 records that odd rounds delete (2025-08-01 00:00 to 02:00). */
const GAP = { from: "2025-08-01T00:00", to: "2025-08-01T02:00", count: 13 };

interface State {
  marker: number;
  count: number;
}

/** The version in a strong ETag "<id>-<version>-<hash>". */
const versionOf = (etag: string | null) => (etag ? Number(etag.replace(/^W\//, "").replace(/"/g, "").split("-")[1]) : NaN);

let server: TestServer;
let http: ReturnType<typeof api>;
let path: string;
let seriesId: number;
let token: string;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  token = (await f.user({ superuser: true })).token;
  const stationId = await f.station({ displayTimezone: "Etc/GMT-2" });
  const groupId = await f.group(stationId, { precision: 0 });
  seriesId = await f.series(groupId, { timeStep: "10min", publiclyAvailable: true });
  const timestamps = new Float64Array(N);
  const values = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    timestamps[i] = DAY0 + i * 600;
    values[i] = i % 500;
  }
  await records().replace(seriesId, -1e12, { timestamps, values, flags: new Array<string>(N).fill("") });
  path = `/api/stations/${stationId}/timeseriesgroups/${groupId}/timeseries/${seriesId}`;
}, 120_000);
afterAll(() => server?.stop());

describe(`reads racing a writer see one written state (${DIALECT})`, () => {
  it("data/, HTS, tsdata and the legacy statistics: one state, the ETag's, Count = lines, no 500", async () => {
    const states = new Map<number, State>();
    const note = async (state: State) => {
      const r = await http.head(`${path}/data/`);
      states.set(versionOf(r.headers.get("etag")), state);
    };
    const patch = async (value: number) => {
      const r = await http.patch(`${path}/data/`, { token, json: { records: MARKERS.map((timestamp) => ({ timestamp, value })) } });
      expect(r.status).toBe(200);
    };
    await patch(1000);
    await note({ marker: 1000, count: N });

    let done = false;
    const writer = async () => {
      try {
        let correction: number | null = null;
        for (let k = 1; k <= ROUNDS; k++) {
          await patch(1000 + k);
          await note({ marker: 1000 + k, count: correction === null ? N : N - GAP.count });
          if (correction === null) {
            const r = await http.delete(`${path}/data/?start_date=${GAP.from}&end_date=${GAP.to}`, { token });
            expect(r.status).toBe(200);
            correction = r.json.correction as number;
            await note({ marker: 1000 + k, count: N - GAP.count });
          } else {
            expect((await http.post(`${path}/corrections/${correction}/revert/`, { token, json: {} })).status).toBe(200);
            correction = null;
            await note({ marker: 1000 + k, count: N });
          }
        }
      } finally {
        done = true;
      }
    };

    /** What each read saw: its kind, status, version, markers and count (and Count= for HTS). */
    const seen: { kind: string; status: number; version: number; markers: number[]; count: number; declared?: number; body?: string }[] = [];
    const recordLines = (text: string) => {
      const lines = text.split("\r\n").filter((line) => line !== "");
      const byTime = new Map(lines.map((line) => [line.slice(0, 16), Number(line.split(",")[1])]));
      return { count: lines.length, markers: MARKERS.map((m) => byTime.get(m) ?? NaN) };
    };
    const kinds = {
      async data() {
        const r = await http.get(`${path}/data/`);
        return { status: r.status, version: versionOf(r.headers.get("etag")), ...recordLines(r.text), body: r.status === 200 ? undefined : r.text };
      },
      async hts() {
        const r = await http.get(`${path}/data/?fmt=hts`);
        const [head, body = ""] = r.text.split("\r\n\r\n");
        const declared = Number(/Count=(\d+)/.exec(head)?.[1] ?? NaN);
        return { status: r.status, version: versionOf(r.headers.get("etag")), ...recordLines(body), declared, body: r.status === 200 ? undefined : r.text };
      },
      async tsdata() {
        const r = await http.get(`/api/tsdata/${seriesId}/`);
        return { status: r.status, version: versionOf(r.headers.get("etag")), ...recordLines(r.text), body: r.status === 200 ? undefined : r.text };
      },
      async legacy() {
        const r = await http.get(`/timeseries/data/?object_id=${seriesId}`);
        const stats = r.status === 200 ? JSON.parse(r.text).stats : null;
        return {
          status: r.status, version: versionOf(r.headers.get("etag")), markers: [stats?.max ?? NaN], count: stats?.count ?? NaN,
          body: r.status === 200 ? undefined : r.text.slice(0, 300),
        };
      },
    };
    const order = Object.keys(kinds) as (keyof typeof kinds)[];
    const reader = async (w: number) => {
      for (let i = w; !done; i++) {
        const kind = order[i % order.length];
        seen.push({ kind, ...(await kinds[kind]()) });
      }
    };
    await Promise.all([writer(), ...Array.from({ length: READERS }, (_, w) => reader(w))]);

    const problems: unknown[] = [];
    for (const s of seen) {
      const state = states.get(s.version);
      const markersAgree = s.markers.every((m) => m === s.markers[0]);
      const ok = s.status === 200 && state !== undefined && markersAgree && s.markers[0] === state.marker && s.count === state.count
        && (s.declared === undefined || s.declared === s.count);
      if (!ok) problems.push({ ...s, state });
    }
    expect(seen.length).toBeGreaterThan(ROUNDS);
    expect({ reads: seen.length, wrong: problems.length, first: problems.slice(0, 3) }).toEqual({ reads: seen.length, wrong: 0, first: [] });
  }, 300_000);
});

describe(`whole days whose sums overflow (${DIALECT})`, () => {
  it("are added to ±Infinity in a read snapshot, without ending it with an error", async () => {
    const station = await f.station({ displayTimezone: "Etc/GMT-2" });
    const id = await f.series(await f.group(station, { precision: 0 }), { timeStep: "10min" });
    // One record a day: each day's sum is finite, their sum is not.
    const n = 5;
    const timestamps = Float64Array.from({ length: n }, (_, i) => DAY0 + i * DAY);
    const values = new Float64Array(n).fill(1e308);
    await records().replace(id, -1e12, { timestamps, values, flags: new Array<string>(n).fill("") });
    const [whole, more] = await withReadSnapshot(async () => [
      await records().aggregateRanges(id, [[-1e12, 1e12], [DAY0 + DAY, DAY0 + DAY + 599], [DAY0 - 7200, DAY0 + 2 * DAY - 7201]]),
      await records().count(id, -1e12, 1e12),
    ] as const);
    expect(whole[0]).toEqual({ count: n, sum: Infinity, min: 1e308, max: 1e308 });
    expect(whole[1]).toEqual({ count: 1, sum: 1e308, min: 1e308, max: 1e308 });
    expect(whole[2]).toEqual({ count: 2, sum: Infinity, min: 1e308, max: 1e308 });
    expect(more).toBe(n);
  });
});

/**
 * A read that fetches more than its read-ahead while its reader is slow (a long download): it
 * keeps its snapshot while it may linger, and otherwise goes on outside it, checking the
 * series' version with every fetch (RecordsChangedDuringRead when it changed). The store is
 * made with a read-ahead of 4 KB so that a year of records is such a read.
 */
describe.runIf(DIALECT === "postgres")("a read longer than its read-ahead (postgres, in process)", () => {
  let store: PostgresBlockStore;
  let id: number;
  const lastT = DAY0 + (N - 1) * 600;

  beforeAll(async () => {
    const { pool, reads } = db();
    store = new PostgresBlockStore(pool!, reads!, { readAhead: 4096 });
    id = await f.series(await f.group(await f.station({ displayTimezone: "Etc/GMT-2" }), { precision: 0 }), { timeStep: "10min" });
    const timestamps = Float64Array.from({ length: N }, (_, i) => DAY0 + i * 600);
    const values = Float64Array.from({ length: N }, (_, i) => i % 500);
    await records().replace(id, -1e12, { timestamps, values, flags: new Array<string>(N).fill("") });
  }, 120_000);

  /**
   * Begins a read of the whole series in a snapshot (its first chunk), lets the snapshot's opener
   * go, runs `meanwhile`, then reads the rest: the records' count and last timestamp, or the error.
   */
  async function slowRead(meanwhile: () => Promise<void>): Promise<{ count: number; last: number } | { error: unknown }> {
    const { chunks, first } = await withReadSnapshot(async () => {
      const chunks = store.read(id, -1e12, 1e12, 5000);
      return { chunks, first: await chunks.next() };
    });
    await meanwhile();
    let count = 0;
    let last = NaN;
    const add = (c: RecordChunk) => {
      count += c.length;
      last = c.timestamps[c.length - 1];
    };
    try {
      if (!first.done) add(first.value);
      for await (const c of { [Symbol.asyncIterator]: () => chunks }) add(c);
      return { count, last };
    } catch (error) {
      return { error };
    }
  }

  /** Appends one record after the last (a new version). */
  let appended = 0;
  const append = async () => {
    appended++;
    const t = lastT + appended * 600;
    await records().replace(id, t, { timestamps: Float64Array.of(t), values: Float64Array.of(1), flags: [""] });
  };

  /** Runs `fn` with every lingering slot of the process's pool taken. */
  async function withoutLingering<T>(fn: () => Promise<T>): Promise<T> {
    const pool = db().pool!;
    const { linger } = snapshotLimits(pool, pool.options.max ?? 10);
    let taken = 0;
    while (linger.tryAcquire()) taken++;
    try {
      return await fn();
    } finally {
      for (; taken > 0; taken--) linger.release();
    }
  }

  it("lingering, it reads the state of its snapshot whatever is written meanwhile", async () => {
    const before = N + appended;
    const beforeLast = lastT + appended * 600;
    expect(await slowRead(append)).toEqual({ count: before, last: beforeLast });
  });

  it("a reader that takes nothing for LINGER_IDLE_MS lets the snapshot go: a change after that ends the read", async () => {
    const result = await slowRead(async () => {
      await new Promise((resolve) => setTimeout(resolve, LINGER_IDLE_MS + 1000));
      await append();
    });
    expect("error" in result && result.error).toBeInstanceOf(RecordsChangedDuringRead);
  }, 30_000);

  it("without a lingering slot, it goes on outside its snapshot while the series is unchanged", async () => {
    const count = N + appended;
    const last = lastT + appended * 600;
    expect(await withoutLingering(() => slowRead(async () => undefined))).toEqual({ count, last });
  });

  it("without a lingering slot, a change meanwhile ends it with RecordsChangedDuringRead, never a mixed read", async () => {
    const result = await withoutLingering(() => slowRead(append));
    expect("error" in result && result.error).toBeInstanceOf(RecordsChangedDuringRead);
  });
});
