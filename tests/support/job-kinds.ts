// The test kinds of the job tests (their pool: "default"), run by the fault tests' worker
// process (tests/support/job-worker.ts) and by job threads (tests/support/job-thread.ts).
import { appendFileSync } from "node:fs";
import type { JobHandler } from "@/lib/jobs/registry";
import { records } from "@/lib/records";

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => {
    clearTimeout(timer);
    reject(signal.reason);
  });
});

/** Replaces a series' records from `from` on with `n` ten-minute records of `value`, announcing each step. */
const replace: JobHandler = async (job, ctx) => {
  const { seriesId, from, n, value, delayMs } = job.payload as { seriesId: number; from: number; n: number; value: number; delayMs: number };
  console.log(`started ${job.id} attempt ${job.attempts}`);
  await sleep(delayMs, ctx.signal);
  const batch = {
    timestamps: Float64Array.from({ length: n }, (_, i) => from + i * 600),
    values: new Float64Array(n).fill(value),
    flags: new Array<string>(n).fill(""),
  };
  console.log(`replacing ${job.id}`);
  const written = await records().replace(seriesId, from, batch);
  console.log(`replaced ${job.id}`);
  return { from, records_written: written };
};

/** Notes each execution in the JOB_LOG file (one line: job id and runner), taking a little while. */
const count: JobHandler = async (job, ctx) => {
  appendFileSync(process.env.JOB_LOG!, `${job.id} ${ctx.owner}\n`);
  await sleep(Number((job.payload as { ms?: number }).ms ?? 0), ctx.signal);
  return null;
};

/** Spins the CPU until it is stopped, never looking at its signal. */
const spin: JobHandler = async () => {
  console.log("spinning");
  for (;;) Math.sqrt(Math.random());
};

/** Allocates until its thread runs out of heap. */
const hog: JobHandler = async () => {
  const kept: number[][] = [];
  for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => i + kept.length));
};

export const TEST_KINDS: ReadonlyMap<string, JobHandler> = new Map([["test.replace", replace], ["test.count", count], ["test.spin", spin], ["test.hog", hog]]);
