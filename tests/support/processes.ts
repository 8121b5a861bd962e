import { expect } from "vitest";
import { db, Prisma } from "@/lib/db";
import { PROCESS_KIND } from "@/lib/processing/state";
import type { api } from "@/tests/support/http";
import { until } from "@/tests/support/wait";

/** Helpers of the processing tests: paths, a day of ten-minute records, and waiting for the runs. */
export type Http = ReturnType<typeof api>;

export const groupApi = (sid: number, gid: number) => `/api/stations/${sid}/timeseriesgroups/${gid}/`;
export const processesApi = (sid: number, gid: number) => `${groupApi(sid, gid)}processes/`;
export const seriesApi = (sid: number, gid: number, tid: number) => `${groupApi(sid, gid)}timeseries/${tid}/`;

/** Record lines in UTC: `values[i]` (null: empty) every `stepMinutes` from `start` (ISO, UTC). */
export function recordLines(start: string, values: (number | null)[], stepMinutes = 10): string {
  const t0 = Date.parse(start);
  return values.map((v, i) => {
    const d = new Date(t0 + i * stepMinutes * 60_000).toISOString();
    return `${d.slice(0, 10)} ${d.slice(11, 16)},${v === null ? "" : v},`;
  }).join("\n");
}

/** Appends (or inserts) record lines in UTC through the API. */
export async function upload(http: Http, token: string, path: string, text: string, mode: "append" | "insert" = "append"): Promise<void> {
  const r = await http.post(`${path}data/`, { token, json: { timeseries_records: text, timezone: "UTC", mode } });
  expect(r.status, r.text).toBe(204);
}

/** How many process runs are running or queued and due. */
function runsDueOrRunning(): Promise<number> {
  return db().prisma.job.count({ where: { kind: PROCESS_KIND, OR: [{ status: "running" }, { status: "queued", runAfter: { lte: new Date() } }] } });
}

/**
 * Until no run of a process is due or running (the chain included: a run queues the next ones
 * before it finishes). Retries waiting for their backoff do not count.
 */
export async function runsSettled(timeoutMs = 30_000): Promise<void> {
  const pending = await until(runsDueOrRunning, (n) => n === 0, timeoutMs, 20);
  expect(pending, "process runs still pending").toBe(0);
}

/**
 * runsSettled, and until none of the processes `ids` has changes pending (dirty_from) or taken
 * by a run that has not finished (running_from): their targets are then what their last runs
 * wrote. The process rows say so whatever the jobs' states, so that a reading of the targets
 * after it cannot race the end of a chain of runs.
 */
export async function processesSettled(ids: readonly number[], timeoutMs = 30_000): Promise<void> {
  const pending = await until(async () => {
    const [jobs, [row]] = await Promise.all([
      runsDueOrRunning(),
      db().query<{ n: unknown }>(Prisma.sql`SELECT COUNT(*) AS n FROM process
        WHERE id IN (${Prisma.join([...ids])}) AND (dirty_from IS NOT NULL OR running_from IS NOT NULL)`),
    ]);
    return { jobs, processes: Number(row.n) };
  }, (p) => p.jobs === 0 && p.processes === 0, timeoutMs, 20);
  expect(pending, "process runs still pending").toEqual({ jobs: 0, processes: 0 });
}

/** A series' records as the API gives them (CSV in UTC). */
export async function csv(http: Http, path: string, token?: string): Promise<string> {
  const r = await http.get(`${path}data/?timezone=UTC`, { token });
  expect(r.status, r.text).toBe(200);
  return r.text;
}

/** The id of a group's series of a type (and time step and name for Aggregated ones). */
export async function seriesId(http: Http, sid: number, gid: number, type: string, match: { time_step?: string; name?: string } = {}): Promise<number> {
  const r = await http.get(`${groupApi(sid, gid)}timeseries/?page_size=100`);
  const found = (r.json.results as { id: number; type: string; time_step: string; name: string }[])
    .find((s) => s.type === type && (match.time_step === undefined || s.time_step === match.time_step) && (match.name === undefined || s.name === match.name));
  expect(found, `${type} series of group ${gid}`).toBeDefined();
  return found!.id;
}
