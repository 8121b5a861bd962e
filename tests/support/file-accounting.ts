// Setup file of every test project. With TEST_CPU_LOG=<file>, appends one JSON line per test file:
// its wall time, the CPU time of the test process, and that of the processes it started and
// waited for (test servers and their workers, job workers, scripts), in seconds; the test servers
// add a line for each start and stop (tests/support/server.ts). What the wall
// time has beyond the CPU times is waiting: sleeps, polls, timeouts, PostgreSQL (not counted:
// its own processes), or the machine's other processes. Wall times vary with the machine's load;
// CPU times much less, so they compare runs on a shared machine.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, expect } from "vitest";

const log = process.env.TEST_CPU_LOG;

/** utime, stime, cutime, cstime of this process in seconds (/proc: clock ticks of 1/100 s). */
function times(): number[] {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields.slice(11, 15).map((ticks) => Number(ticks) / 100);
}

const round = (x: number) => Math.round(x * 10) / 10;
const testFile = () => (expect.getState().testPath ?? "?").replace(`${process.cwd()}/`, "");

if (log) {
  // From here (the file's setup, before its imports and top-level code) to its last afterAll.
  const start = { wall: Date.now(), cpu: times() };
  afterAll(() => {
    const [u, s, cu, cs] = times().map((t, i) => t - start.cpu[i]);
    appendFileSync(log, `${JSON.stringify({
      file: testFile(), database: process.env.TEST_DATABASE ?? null, wall: round((Date.now() - start.wall) / 1000), cpu: round(u + s), children: round(cu + cs),
      from: start.wall, to: Date.now(),
    })}\n`);
  });
}
