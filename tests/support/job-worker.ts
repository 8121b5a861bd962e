// A job worker process for the fault tests (tests/http/jobs-faults.test.ts): `npm run worker`'s
// runner with the service's kinds plus two test kinds. Run with tsx; DATABASE_URL and the
// ENHYDRIS_JOB_* settings come from the environment, JOB_LOG names the executions file.
import { appendFileSync } from "node:fs";
import { registerCapabilities } from "@/lib/capabilities";
import { jobHandlers, type JobHandler } from "@/lib/jobs/registry";
import { runWorkerProcess } from "@/lib/jobs/worker";
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

// Every replacement of records (the process runs' included) is announced, so that a test can kill the worker in one.
const store = records();
const replaceRecords = store.replace.bind(store);
store.replace = (seriesId, ...rest) => {
  console.log(`replacing records of series ${seriesId}`);
  return replaceRecords(seriesId, ...rest);
};

registerCapabilities();
runWorkerProcess({ handlers: new Map([...jobHandlers(), ["test.replace", replace], ["test.count", count]]) }).catch((e) => {
  console.error(e);
  process.exit(1);
});
