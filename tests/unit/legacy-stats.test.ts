/**
 * The legacy cached statistics algorithm (formats.md §8): interval selection on an in-memory
 * record index, down-sampling, statistics and vector statistics, with every worked example.
 */
import { describe, expect, it } from "vitest";
import { resolveTimeZone } from "@/lib/formats/timezone";
import {
  addMonths, bucketEnds, bucketStep, extremeBuckets, legacyJson, legacyResult, normalizeDirection, resultFromBuckets, sectorOf, selectInterval, targets,
  vectorAverage,
  type LegacyResult, type RecordIndex, type Selection,
} from "@/lib/legacy/stats";

const ZONE = resolveTimeZone("Etc/GMT-2")!;
const T0 = 1577829600; // 2020-01-01 00:00 at UTC+2
const TIMES = [0, 1, 2, 3, 4, 5, 6].map((i) => T0 + 600 * i);
const VALUES = [350, 10, NaN, 45, 90, 200, 10];
const ms = (i: number) => 1577829600000 + 600000 * i;

/** The record index over sorted timestamps, by brute force. */
function memoryIndex(ts: number[]): RecordIndex {
  return {
    count: ts.length,
    firstTimestamp: ts.length ? ts[0] : null,
    lastTimestamp: ts.length ? ts[ts.length - 1] : null,
    countFrom: async (t) => ts.filter((x) => x >= t).length,
    around: async (t) => {
      const before = ts.filter((x) => x < t);
      const after = ts.filter((x) => x >= t);
      return { before: before.length ? before[before.length - 1] : null, after: after.length ? after[0] : null };
    },
    timestampAt: async (k) => ts[k],
  };
}

const NONE: Selection = { startPos: null, endPos: null, last: null, date: null, time: null, startOffset: 0, exactDatetime: false };

/** The whole computation of the endpoint for a query string (after object_id=7). */
async function run(query: string, ts = TIMES, values = VALUES, precision = 1): Promise<{ interval: [number, number] | null; result: LegacyResult | null }> {
  const q = new URLSearchParams(query);
  const num = (name: string) => (q.get(name) === null ? null : Number(q.get(name)));
  const s: Selection = {
    ...NONE,
    startPos: num("start_pos"),
    endPos: num("end_pos"),
    last: (q.get("last") as Selection["last"]) ?? null,
    date: q.get("date"),
    time: q.get("time"),
    startOffset: num("start_offset") ?? 0,
    exactDatetime: q.get("exact_datetime") === "true",
  };
  const interval = await selectInterval(s, memoryIndex(ts), ZONE);
  if (interval === null) return { interval: null, result: null };
  const slice = (arr: number[]) => arr.slice(interval.a, interval.b + 1);
  return {
    interval: [interval.a, interval.b],
    result: legacyResult(slice(ts), slice(values), interval.a, interval.b, precision, q.get("vector") === "true"),
  };
}

/** Relative comparison within 1e-9 (formats.md §8.5). */
function close(actual: number | null | undefined, expected: number, scale = Math.abs(expected)) {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(scale, 1e-300));
}

/** Angles compared on the circle. */
function closeAngle(actual: number | null | undefined, expected: number) {
  expect(actual).not.toBeNull();
  const d = Math.abs((((actual as number) - expected) % 360 + 540) % 360 - 180);
  expect(d).toBeLessThanOrEqual(1e-9 * 360);
}

const FULL_DATA = [[ms(0), "350.0", 0], [ms(1), "10.0", 1], [ms(2), null, 2], [ms(3), "45.0", 3], [ms(4), "90.0", 4], [ms(5), "200.0", 5], [ms(6), "10.0", 6]];
const ALL_NULL = '{"min":null,"min_tstmp":null,"max":null,"max_tstmp":null,"avg":null,"vavg":null,"count":0,"last":null,"last_tstmp":null,"sum":null,"vsum":null,"vectors":null}';

describe("the worked examples of formats.md §8.7", () => {
  it("object_id=7&vector=true: the first example", async () => {
    const { interval, result } = await run("vector=true");
    expect(interval).toEqual([0, 6]);
    const st = result!.stats;
    expect(Object.keys(st)).toEqual(["min", "min_tstmp", "max", "max_tstmp", "avg", "vavg", "count", "last", "last_tstmp", "sum", "vsum", "vectors"]);
    expect({ min: st.min, min_tstmp: st.min_tstmp, max: st.max, max_tstmp: st.max_tstmp, avg: st.avg, count: st.count, last: st.last, last_tstmp: st.last_tstmp, sum: st.sum })
      .toEqual({ min: 10, min_tstmp: 1577833200000, max: 350, max_tstmp: 1577829600000, avg: 117.5, count: 6, last: 10, last_tstmp: 1577833200000, sum: 705 });
    closeAngle(st.vavg, 29.480754157703142);
    close(st.vsum![0], 1.5387348155278082, 6);
    close(st.vsum![1], 2.721837419437263, 6);
    expect(st.vectors).toEqual([50, 16.666666666666668, 16.666666666666668, 0, 16.666666666666668, 0, 0, 0]);
    expect(result!.data).toEqual(FULL_DATA);
  });

  it("(no parameters): the same statistics without the vector ones", async () => {
    const { interval, result } = await run("");
    expect(interval).toEqual([0, 6]);
    expect(legacyJson(result)).toBe(
      '{"stats":{"min":10,"min_tstmp":1577833200000,"max":350,"max_tstmp":1577829600000,"avg":117.5,"vavg":null,"count":6,"last":10,' +
      '"last_tstmp":1577833200000,"sum":705,"vsum":[0,0],"vectors":[0,0,0,0,0,0,0,0]},"data":[[1577829600000,"350.0",0],' +
      '[1577830200000,"10.0",1],[1577830800000,null,2],[1577831400000,"45.0",3],[1577832000000,"90.0",4],[1577832600000,"200.0",5],' +
      '[1577833200000,"10.0",6]]}');
  });

  it("last=hour: T_b = 01:00 − 60 min = 00:00 exactly", async () => {
    expect((await run("last=hour")).interval).toEqual([0, 6]);
  });

  it("last=hour&start_offset=10&vector=true → [1,6]", async () => {
    const { interval, result } = await run("last=hour&start_offset=10&vector=true");
    expect(interval).toEqual([1, 6]);
    const st = result!.stats;
    expect({ min: st.min, min_tstmp: st.min_tstmp, max: st.max, max_tstmp: st.max_tstmp, avg: st.avg, count: st.count, sum: st.sum })
      .toEqual({ min: 10, min_tstmp: 1577833200000, max: 200, max_tstmp: 1577832600000, avg: 71, count: 5, sum: 355 });
    closeAngle(st.vavg, 44.590618327398396);
    close(st.vsum![0], 1.7123829931947394, 5);
    close(st.vsum![1], 1.7370296664250553, 5);
    expect(st.vectors).toEqual([40, 20, 20, 0, 20, 0, 0, 0]);
  });

  it("last=hour&date=2020-01-01&time=00:20 → [2,6] (T_b on a null value, T_e 01:20 → 01:00)", async () => {
    const { interval, result } = await run("last=hour&date=2020-01-01&time=00:20");
    expect(interval).toEqual([2, 6]);
    const st = result!.stats;
    expect({ min: st.min, max: st.max, avg: st.avg, count: st.count, sum: st.sum }).toEqual({ min: 10, max: 200, avg: 86.25, count: 4, sum: 345 });
  });

  it("exact_datetime=true without a record at T_e gives null", async () => {
    const { result } = await run("last=hour&date=2020-01-01&time=00:20&exact_datetime=true");
    expect(legacyJson(result)).toBe("null");
  });

  it("exact_datetime=true with both bounds stored → [0,6]", async () => {
    expect((await run("last=hour&date=2020-01-01&time=00:00&exact_datetime=true")).interval).toEqual([0, 6]);
  });

  it("last=day&exact_datetime=true → null (no record at 2019-12-31 01:00)", async () => {
    expect((await run("last=day&exact_datetime=true")).result).toBeNull();
  });

  it("last=day → [0,6] (T_b before the first record → 0)", async () => {
    expect((await run("last=day")).interval).toEqual([0, 6]);
  });

  it("last=moment&date=2020-01-01&time=00:30 → [3,3]", async () => {
    const { interval, result } = await run("last=moment&date=2020-01-01&time=00:30");
    expect(interval).toEqual([3, 3]);
    expect(legacyJson(result)).toBe(
      '{"stats":{"min":45,"min_tstmp":1577831400000,"max":45,"max_tstmp":1577831400000,"avg":45,"vavg":null,"count":1,"last":45,' +
      '"last_tstmp":1577831400000,"sum":45,"vsum":[0,0],"vectors":[0,0,0,0,0,0,0,0]},"data":[[1577831400000,"45.0",3]]}');
  });

  it("last=moment&date=2020-01-01&time=00:05 → [0,0] (a tie goes to the earlier record)", async () => {
    expect((await run("last=moment&date=2020-01-01&time=00:05")).interval).toEqual([0, 0]);
  });

  it("last=moment → [6,6] (the last record)", async () => {
    const { interval, result } = await run("last=moment");
    expect(interval).toEqual([6, 6]);
    expect(legacyJson(result)).toBe(
      '{"stats":{"min":10,"min_tstmp":1577833200000,"max":10,"max_tstmp":1577833200000,"avg":10,"vavg":null,"count":1,"last":10,' +
      '"last_tstmp":1577833200000,"sum":10,"vsum":[0,0],"vectors":[0,0,0,0,0,0,0,0]},"data":[[1577833200000,"10.0",6]]}');
  });

  it("start_pos=1&end_pos=3 → [1,3]", async () => {
    const { interval, result } = await run("start_pos=1&end_pos=3");
    expect(interval).toEqual([1, 3]);
    const st = result!.stats;
    expect({ min: st.min, min_tstmp: st.min_tstmp, max: st.max, max_tstmp: st.max_tstmp, avg: st.avg, count: st.count, sum: st.sum, last: st.last })
      .toEqual({ min: 10, min_tstmp: 1577830200000, max: 45, max_tstmp: 1577831400000, avg: 27.5, count: 2, sum: 55, last: 45 });
    expect(result!.data).toEqual([[ms(1), "10.0", 1], [ms(2), null, 2], [ms(3), "45.0", 3]]);
  });

  it("start_pos=5&end_pos=99 → [5,6] (end clamped)", async () => {
    const { interval, result } = await run("start_pos=5&end_pos=99");
    expect(interval).toEqual([5, 6]);
    const st = result!.stats;
    expect({ min: st.min, max: st.max, avg: st.avg, count: st.count, sum: st.sum }).toEqual({ min: 10, max: 200, avg: 105, count: 2, sum: 210 });
  });

  it("start_pos=4&end_pos=2 → empty: every statistic null, no data", async () => {
    const { result } = await run("start_pos=4&end_pos=2");
    expect(legacyJson(result)).toBe(`{"stats":${ALL_NULL},"data":[]}`);
  });

  it("start_pos=2&end_pos=2&vector=true → count 0, all-null statistics, one null point", async () => {
    const { result } = await run("start_pos=2&end_pos=2&vector=true");
    expect(legacyJson(result)).toBe(`{"stats":${ALL_NULL},"data":[[1577830800000,null,2]]}`);
  });

  it("start_pos=0&end_pos=0&vector=true → vavg ≈ 350", async () => {
    const { result } = await run("start_pos=0&end_pos=0&vector=true");
    const st = result!.stats;
    closeAngle(st.vavg, 349.99999999999994);
    close(st.vsum![0], -0.17364817766693127, 1);
    close(st.vsum![1], 0.9848077530122079, 1);
    expect(st.vectors).toEqual([100, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("a start position past the last record gives an empty interval; a lone start_pos is ignored", async () => {
    expect((await run("start_pos=7&end_pos=9")).result!.data).toEqual([]);
    expect((await run("start_pos=3")).interval).toEqual([0, 6]);
    expect((await run("end_pos=3")).interval).toEqual([0, 6]);
  });

  it("date and time without last are ignored; time without date is ignored", async () => {
    expect((await run("date=2020-01-01")).interval).toEqual([0, 6]);
    expect((await run("last=moment&time=00:30")).interval).toEqual([6, 6]);
  });

  it("start_offset may be fractional or negative", async () => {
    // T_b = 00:00 + 14.9 min → nearest 00:10 (index 1); 00:00 + 15 min is a tie → the earlier (index 1)
    expect((await run("last=hour&date=2020-01-01&start_offset=14.9")).interval).toEqual([1, 6]);
    expect((await run("last=hour&date=2020-01-01&start_offset=15")).interval).toEqual([1, 6]);
    expect((await run("last=hour&date=2020-01-01&start_offset=15.1")).interval).toEqual([2, 6]);
    // T_b = 01:00 − 60 + (−5) min → before the first record → 0
    expect((await run("last=hour&start_offset=-5")).interval).toEqual([0, 6]);
    // T_b = 00:30 − 10 min = 00:20; T_e = 00:30 (moment)
    expect((await run("last=moment&date=2020-01-01&time=00:30&start_offset=-10")).interval).toEqual([2, 3]);
    // a fractional T_b is never an exact record time
    expect((await run("last=hour&date=2020-01-01&start_offset=0.5&exact_datetime=true")).result).toBeNull();
  });

  it("a start offset past the end target gives an empty interval", async () => {
    // T_b = 00:30 → index 3, T_e = 00:00 → index 0
    const { result } = await run("last=moment&date=2020-01-01&start_offset=30");
    expect(legacyJson(result)).toBe(`{"stats":${ALL_NULL},"data":[]}`);
  });

  it("an empty series: empty interval, or null with exact_datetime", async () => {
    expect(legacyJson((await run("", [], [])).result)).toBe(`{"stats":${ALL_NULL},"data":[]}`);
    expect(legacyJson((await run("last=day", [], [])).result)).toBe(`{"stats":${ALL_NULL},"data":[]}`);
    expect((await run("last=day&exact_datetime=true", [], [])).result).toBeNull();
    expect((await run("start_pos=0&end_pos=5", [], [])).result!.data).toEqual([]);
  });
});

describe("calendar months (formats.md §8.2)", () => {
  const at = (local: string) => Date.parse(`${local}+02:00`) / 1000;
  const text = (t: number) => new Date((t + 7200) * 1000).toISOString().slice(0, 16).replace("T", " ");

  it("clamps the day to the length of the target month", () => {
    expect(text(addMonths(at("2020-03-31T10:00"), -1, ZONE))).toBe("2020-02-29 10:00");
    expect(text(addMonths(at("2021-03-31T00:00"), -1, ZONE))).toBe("2021-02-28 00:00");
    expect(text(addMonths(at("2020-02-29T00:00"), -12, ZONE))).toBe("2019-02-28 00:00");
    expect(text(addMonths(at("2020-01-31T00:00"), 1, ZONE))).toBe("2020-02-29 00:00");
    expect(text(addMonths(at("2020-12-15T23:59"), 1, ZONE))).toBe("2021-01-15 23:59");
    expect(text(addMonths(at("2020-01-15T00:00"), -1, ZONE))).toBe("2019-12-15 00:00");
  });

  it("date=2020-01-31, last=month → T_e = 2020-02-29 00:00", () => {
    const t = targets({ ...NONE, last: "month", date: "2020-01-31" }, null, ZONE)!;
    expect(text(t.tb)).toBe("2020-01-31 00:00");
    expect(text(t.te)).toBe("2020-02-29 00:00");
  });

  it("last=year without date counts back 12 months from the last record", () => {
    const t = targets({ ...NONE, last: "year" }, at("2020-02-29T10:00"), ZONE)!;
    expect(text(t.tb)).toBe("2019-02-28 10:00");
    expect(text(t.te)).toBe("2020-02-29 10:00");
  });

  it("the lengths of the other choices are minutes", () => {
    const L = at("2020-01-10T00:00");
    const back = (last: Selection["last"]) => L - targets({ ...NONE, last }, L, ZONE)!.tb;
    expect([back("hour"), back("twohour"), back("day"), back("week"), back("moment")]).toEqual([3600, 7200, 86400, 604800, 0]);
  });
});

describe("down-sampling (formats.md §8.3)", () => {
  /** len records i = 0 … len−1 with value i, from index a. */
  function sampled(len: number, a = 0, nulls: number[] = []) {
    const ts = Array.from({ length: len }, (_, i) => T0 + 600 * (a + i));
    const vs = Array.from({ length: len }, (_, i) => (nulls.includes(a + i) ? NaN : a + i));
    return legacyResult(ts, vs, a, a + len - 1, 0, false).data;
  }

  it.each([
    [400, 1, 400, 0, 399],
    [401, 2, 201, 1, 400],
    [599, 2, 300, 1, 598],
    [600, 3, 200, 2, 599],
    [1000, 5, 200, 4, 999],
    [1001, 5, 201, 4, 1000],
    [10000, 50, 200, 49, 9999],
  ])("len %i: step %i, %i points, first at a+%i, last at a+%i", (len, step, points, first, last) => {
    const a = 17;
    expect(bucketStep(len)).toBe(len <= 400 ? 1 : step);
    const data = sampled(len, a);
    expect(data.length).toBe(points);
    expect(data[0][2]).toBe(a + first);
    expect(data[data.length - 1][2]).toBe(a + last);
    // each point carries its record's timestamp and the bucket's maximum (the values increase)
    expect(data[0]).toEqual([(T0 + 600 * (a + first)) * 1000, String(a + first), a + first]);
  });

  it("records 0…400 with value i: [[t1,\"1\",1],[t3,\"3\",3],…,[t399,\"399\",399],[t400,\"400\",400]]", () => {
    const data = sampled(401);
    const t = (i: number) => (T0 + 600 * i) * 1000;
    expect(data.length).toBe(201);
    expect(data.slice(0, 2)).toEqual([[t(1), "1", 1], [t(3), "3", 3]]);
    expect(data.slice(-2)).toEqual([[t(399), "399", 399], [t(400), "400", 400]]);
  });

  it("a bucket without values gives null; a bucket's maximum ignores nulls", () => {
    const data = sampled(401, 0, [2, 3]);
    expect(data[1]).toEqual([(T0 + 1800) * 1000, null, 3]);
    const partial = sampled(401, 0, [1]);
    expect(partial[0]).toEqual([(T0 + 600) * 1000, "0", 1]);
  });

  it("statistics use every record, not the sampled points", () => {
    const ts = Array.from({ length: 1000 }, (_, i) => T0 + 600 * i);
    const vs = ts.map((_, i) => (i === 500 ? -1000 : i));
    const st = legacyResult(ts, vs, 0, 999, 0, false).stats;
    expect(st.min).toBe(-1000);
    expect(st.min_tstmp).toBe((T0 + 600 * 500) * 1000);
    expect(st.count).toBe(1000);
  });
});

describe("statistics (formats.md §8.4)", () => {
  const stats = (values: number[], vector = false) => legacyResult(values.map((_, i) => T0 + 600 * i), values, 0, values.length - 1, 2, vector).stats;

  it("min and max ties go to the later record", () => {
    const st = stats([5, 1, 5, 1]);
    expect([st.min_tstmp, st.max_tstmp]).toEqual([(T0 + 1800) * 1000, (T0 + 1200) * 1000]);
  });

  it("series that start with zeros keep every value", () => {
    const st = stats([0, 0, 5, 0]);
    expect({ count: st.count, sum: st.sum, avg: st.avg, max: st.max, min: st.min }).toEqual({ count: 4, sum: 5, avg: 1.25, max: 5, min: 0 });
  });

  it("only nulls: count 0 and every other key null", () => {
    expect(JSON.stringify(stats([NaN, NaN], true))).toBe(ALL_NULL);
  });

  it("values are raw doubles, not rounded to the precision", () => {
    const st = stats([1.23456, 2]);
    expect(st.min).toBe(1.23456);
    expect(st.last).toBe(2);
  });

  it("last is the last non-null value", () => {
    const st = stats([1, 2, NaN]);
    expect([st.last, st.last_tstmp]).toEqual([2, (T0 + 600) * 1000]);
  });
});

describe("vector statistics (formats.md §8.5)", () => {
  const stats = (values: number[]) => legacyResult(values.map((_, i) => T0 + 600 * i), values, 0, values.length - 1, 1, true).stats;

  it("normalizes directions into [0, 360)", () => {
    expect([normalizeDirection(-90), normalizeDirection(720), normalizeDirection(-22.5), normalizeDirection(360)]).toEqual([270, 0, 337.5, 0]);
  });

  it("sector boundaries", () => {
    expect(sectorOf(normalizeDirection(22.5))).toBe(1);
    expect(sectorOf(normalizeDirection(22.4999))).toBe(0);
    expect(sectorOf(normalizeDirection(337.5))).toBe(0);
    expect(sectorOf(normalizeDirection(337.4999))).toBe(7);
    expect(sectorOf(normalizeDirection(360))).toBe(0);
    expect([67.5, 112.5, 157.5, 202.5, 247.5, 292.5].map(sectorOf)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it("percentages multiply first: 100·1/6 = 16.666666666666668", () => {
    expect(stats([0, 0, 0, 0, 0, 90]).vectors).toEqual([83.33333333333333, 0, 16.666666666666668, 0, 0, 0, 0, 0]);
  });

  it("0 and 180 cancel out: vavg null", () => {
    const st = stats([0, 180]);
    close(st.vsum![0], 1.2246467991473532e-16, 2);
    close(st.vsum![1], 0, 2);
    expect(st.vavg).toBeNull();
    expect(st.vectors).toEqual([50, 0, 0, 0, 50, 0, 0, 0]);
  });

  it("350 and 10 average to 0 (360 folded to 0)", () => {
    const st = stats([350, 10]);
    close(st.vsum![0], -9.4e-16, 2);
    close(st.vsum![1], 1.9696155060244158, 2);
    expect(st.vavg).toBe(0);
    expect(st.vectors).toEqual([100, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("a single 45", () => {
    const st = stats([45]);
    expect(st.vsum).toEqual([0.7071067811865475, 0.7071067811865476]);
    expect(st.vavg).toBe(45);
    expect(st.vectors).toEqual([0, 100, 0, 0, 0, 0, 0, 0]);
  });

  it("values outside [−360, 720) take part (normalized)", () => {
    const st = stats([-1000, 1090]);
    // −1000 → 80 (E), 1090 → 10 (N)
    expect(st.vectors).toEqual([50, 0, 50, 0, 0, 0, 0, 0]);
    closeAngle(st.vavg, 45);
    expect(st.min).toBe(-1000);
  });

  it("vectorAverage folds a result of 360 to 0 and adds 360 to negative angles", () => {
    expect(vectorAverage(-1, 0, 1)).toBe(270);
    expect(vectorAverage(-1e-17, 1, 1)).toBe(0);
    expect(vectorAverage(1e-12, 0, 2)).toBeNull();
  });
});

describe("bucket aggregation (the database path of §8.3–8.4)", () => {
  it("bucketEnds follows the down-sampling table", () => {
    expect(bucketEnds(10, 410)).toEqual([...Array.from({ length: 200 }, (_, j) => 11 + 2 * j), 410]);
    expect(bucketEnds(0, 599).length).toBe(200);
    expect(bucketEnds(0, 1000).slice(-2)).toEqual([999, 1000]);
  });

  it("extremeBuckets: ties go to the later bucket; buckets without values are skipped", () => {
    const bk = (count: number, min: number, max: number) => ({ hi: 0, end: 0, count, sum: 0, min, max });
    expect(extremeBuckets([bk(2, 1, 5), bk(0, Infinity, -Infinity), bk(1, 1, 5), bk(0, Infinity, -Infinity)]))
      .toEqual({ min: 1, max: 5, minBucket: 2, maxBucket: 2, lastBucket: 2 });
    expect(extremeBuckets([bk(0, Infinity, -Infinity)])).toBeNull();
  });

  it("resultFromBuckets equals the record-by-record computation", () => {
    const n = 1000;
    const ts = Array.from({ length: n }, (_, i) => T0 + 600 * i);
    const vs = ts.map((_, i) => (i % 9 === 4 ? NaN : Math.sin(i) * 100));
    const expected = legacyResult(ts, vs, 0, n - 1, 1, false);
    const ends = bucketEnds(0, n - 1);
    let start = 0;
    const buckets = ends.map((end) => {
      const vals = vs.slice(start, end + 1).filter((v) => v === v);
      start = end + 1;
      return { hi: ts[end], end, count: vals.length, sum: vals.reduce((a, b) => a + b, 0), min: Math.min(...vals), max: Math.max(...vals) };
    });
    const st = expected.stats;
    const result = resultFromBuckets(buckets, { minT: st.min_tstmp! / 1000, maxT: st.max_tstmp! / 1000, lastT: st.last_tstmp! / 1000, lastV: st.last! }, 1);
    expect(result.data).toEqual(expected.data);
    expect({ ...result.stats, sum: 0, avg: 0 }).toEqual({ ...st, sum: 0, avg: 0 });
    close(result.stats.sum, st.sum!, 1e5);
  });

  it("an interval whose values are all null", () => {
    const result = resultFromBuckets([{ hi: T0, end: 3, count: 0, sum: 0, min: Infinity, max: -Infinity }], null, 1);
    expect(legacyJson(result)).toBe(`{"stats":${ALL_NULL},"data":[[${T0 * 1000},null,3]]}`);
  });
});
