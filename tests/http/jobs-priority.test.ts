import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "@/tests/support/server";
import { until } from "@/tests/support/wait";

/** A process's nice value (/proc/{pid}/stat, the 19th field). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

describe("the job process's priority (ENHYDRIS_JOB_NICE)", () => {
  let server: TestServer | undefined;
  afterAll(() => server?.stop());

  it("is so many steps lower than the server's, while the processes that serve HTTP keep theirs", async () => {
    server = await startServer({ env: { ENHYDRIS_JOB_NICE: "7", ENHYDRIS_WORKERS: "2" } });
    const jobs = (await until(async () => server!.jobProcess(), (pid) => pid !== null, 30_000, 50))!;
    // Seven steps below the server that forked it (this test's own priority, which the server inherits).
    const expected = Math.min(19, niceOf(process.pid) + 7);
    // The process lowers its own priority at its start; its handlers' threads start after and inherit it.
    await until(async () => niceOf(jobs), (nice) => nice === expected, 30_000, 50);
    const web = server.webWorkers();
    expect(web.length).toBe(2);
    for (const pid of server.processes().filter((pid) => pid !== jobs)) expect(niceOf(pid), `process ${pid}`).toBe(niceOf(process.pid));
  }, 120_000);
});
