import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { tick } from "@/lib/telemetry/jobs";
import { dueAfterMinuteOf, isDueMinute, nextDue } from "@/lib/telemetry/schedule";
import * as f from "@/tests/support/fixtures";
import { inProcessDatabase } from "@/tests/support/server";

/**
 * The scheduler's tick (telemetry.md §3) with a clock the test controls, in process on the
 * database under test (no server, no runner): due when the minutes since midnight UTC modulo
 * the interval equal the offset; a fetch missed while no tick ran is queued once; the SQL's next
 * due minute is the definition's; two ticks at once queue each due telemetry once.
 */
inProcessDatabase();
const MINUTE = 60_000;
const DAY0 = Date.UTC(2031, 4, 6);

beforeAll(async () => {
});
beforeEach(async () => {
  await db().write(async (tx) => {
    await tx.telemetry.deleteMany({});
    await tx.job.deleteMany({});
  });
});

async function telemetry(interval: number, offset: number, nextFetch: number): Promise<number> {
  const stationId = await f.station();
  const now = new Date();
  return (await db().write((tx) => tx.telemetry.create({
    data: { stationId, type: "meteoview2", fetchIntervalMinutes: interval, fetchOffsetMinutes: offset, nextFetch: new Date(nextFetch), created: now, lastModified: now },
  }))).id;
}

describe("the scheduler's tick", () => {
  it("queues each telemetry in exactly its due minutes, over a whole day of ticks a second past each minute", async () => {
    const schedules: [number, number][] = [[10, 2], [7, 3], [1440, 125], [60, 0], [15, 14], [11, 10]];
    const ids = await Promise.all(schedules.map(([iv, off]) => telemetry(iv, off, nextDue(DAY0, iv, off))));
    for (let m = 0; m < 1440; m++) {
      const queued = await tick(DAY0 + m * MINUTE + 1000);
      const expected = ids.filter((_, k) => isDueMinute(m, schedules[k][0], schedules[k][1]));
      // Which telemetries, not in what order (the ids above were made at once, in any order).
      const byId = (list: number[]) => [...list].sort((x, y) => x - y);
      expect(byId(queued), `minute ${m}`).toEqual(byId(expected));
    }
    const jobs = await db().prisma.job.findMany({ where: { kind: "telemetry.fetch" } });
    // No runner took them: one queued job per telemetry, the later causes coalesced into it.
    expect(jobs.map((j) => j.key).sort()).toEqual(ids.map((id) => `telemetry:${id}`).sort());
    expect(jobs.every((j) => j.status === "queued")).toBe(true);
  }, 180_000);

  it("queues a fetch missed while no tick ran once, at the first tick after, and moves it to its next due minute", async () => {
    const id = await telemetry(10, 2, DAY0 + 2 * MINUTE);
    const late = DAY0 + 5 * 3600_000 + 37 * 1000;
    expect(await tick(late)).toEqual([id]);
    expect(await tick(late + 5000)).toEqual([]);
    const stored = await db().prisma.telemetry.findUniqueOrThrow({ where: { id } });
    expect(stored.nextFetch.toISOString()).toBe(new Date(DAY0 + (5 * 60 + 2) * MINUTE).toISOString());
    expect(await db().prisma.job.count({ where: { key: `telemetry:${id}` } })).toBe(1);
  });

  it("computes in SQL the next due minute that the definition gives", async () => {
    const cases: { id: number; interval: number; offset: number }[] = [];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let k = 0; k < 120; k++) {
      const interval = 10 + rand(1431);
      const offset = rand(interval);
      cases.push({ id: await telemetry(interval, offset, DAY0 - MINUTE), interval, offset });
    }
    for (const now of [DAY0 + 1000, DAY0 + 1439 * MINUTE + 59_999, DAY0 + 777 * MINUTE + 12_345]) {
      await db().write((tx) => tx.telemetry.updateMany({ data: { nextFetch: new Date(now - MINUTE) } }));
      expect((await tick(now)).length).toBe(cases.length);
      const rows = new Map((await db().prisma.telemetry.findMany()).map((t) => [t.id, t.nextFetch.getTime()]));
      for (const c of cases) expect(rows.get(c.id), `${c.interval}/${c.offset} at ${new Date(now).toISOString()}`).toBe(dueAfterMinuteOf(now, c.interval, c.offset));
    }
  });

  it("queues each due telemetry once when two ticks run at once", async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, () => telemetry(10, 0, DAY0)));
    const [a, b] = await Promise.all([tick(DAY0 + 1000), tick(DAY0 + 1000)]);
    expect([...a, ...b].sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
    expect(await db().prisma.job.count({ where: { kind: "telemetry.fetch" } })).toBe(40);
  });
});
