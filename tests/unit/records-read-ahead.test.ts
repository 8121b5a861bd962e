import { describe, expect, it } from "vitest";
import { type RangePieces, readRange, type ReadAhead } from "@/lib/records/blocks";
import { encodeBlock } from "@/lib/records/codec";
import { DAY, type RecordChunk } from "@/lib/records/types";

/**
 * readRange's fetching ahead of its reader (docs/decisions/0019, "Later"): by default one fetch
 * at most waits for the reader (as before); with `ahead.bytes`, fetches go on until that many
 * bytes wait to be decoded, `full` says when fetching waits for the reader, and `fetched` when
 * the read needs no more fetches (so that a read snapshot can be let go).
 */
const DAYS = 200;
const START = Date.UTC(2020, 0, 1) / 1000;
const blocks = Array.from({ length: DAYS }, (_, d) => {
  const start = START + d * DAY;
  const timestamps = Float64Array.from({ length: 144 }, (_, i) => start + i * 600);
  const values = Float64Array.from({ length: 144 }, (_, i) => d * 1000 + i);
  return { start, count: 144, bytes: encodeBlock({ timestamps, values, flags: new Array<string>(144).fill("") }, start) };
});

/** A fetch over the blocks that counts its calls. */
function source() {
  const calls: number[] = [];
  const fetch = async (from: number, to: number, maxDays: number): Promise<RangePieces> => {
    calls.push(from);
    await new Promise((resolve) => setImmediate(resolve));
    const first = Math.floor((from - START) / DAY) * DAY + START;
    return { blocks: blocks.filter((b) => b.start >= first && b.start <= to).slice(0, maxDays), rows: null };
  };
  return { calls, fetch };
}

const settle = async () => {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
};

async function all(chunks: AsyncGenerator<RecordChunk>): Promise<number[]> {
  const out: number[] = [];
  for await (const c of chunks) for (let i = 0; i < c.length; i++) out.push(c.timestamps[i]);
  return out;
}

const everyTimestamp = blocks.flatMap((b) => Array.from({ length: 144 }, (_, i) => b.start + i * 600));

describe("readRange fetching ahead", () => {
  it("by default, a slow reader has at most one fetch waiting for it", async () => {
    const { calls, fetch } = source();
    const chunks = readRange(fetch, -Infinity, Infinity, 1000);
    await chunks.next();
    await settle();
    const early = calls.length;
    expect(early).toBeLessThanOrEqual(3);
    expect(await all(chunks)).toEqual(everyTimestamp.slice(1000));
    expect(calls.length).toBeGreaterThan(early);
  });

  it("with a budget above the range, everything is fetched before the reader takes it, and `fetched` is told", async () => {
    const { calls, fetch } = source();
    let fetched = 0;
    let full = 0;
    const ahead: ReadAhead = { bytes: 1e9, fetched: () => fetched++, full: () => full++ };
    const chunks = readRange(fetch, -Infinity, Infinity, 1000, ahead);
    const first = await chunks.next();
    await settle();
    expect(fetched).toBe(1);
    const fetches = calls.length;
    expect(first.value!.length).toBe(1000);
    expect(await all(chunks)).toEqual(everyTimestamp.slice(1000));
    expect({ fetches: calls.length, fetched, full }).toEqual({ fetches, fetched: 1, full: 0 });
  });

  it("with a small budget, fetching waits for the reader (`full`), and all records come in order", async () => {
    const { fetch } = source();
    let fetched = 0;
    const rooms: Promise<void>[] = [];
    const ahead: ReadAhead = { bytes: 2000, fetched: () => fetched++, full: (room) => rooms.push(room) };
    const chunks = readRange(fetch, START + 600, START + 150 * DAY, 700, ahead);
    await chunks.next();
    await settle();
    expect(rooms.length).toBeGreaterThan(0);
    expect(fetched).toBe(0);
    const rest = await all(chunks);
    expect(rest).toEqual(everyTimestamp.filter((t) => t >= START + 600 && t <= START + 150 * DAY).slice(700));
    await Promise.all(rooms);
    expect(fetched).toBe(1);
  });

  it("a reader that stops early ends the fetching (`fetched` once)", async () => {
    const { fetch } = source();
    let fetched = 0;
    const chunks = readRange(fetch, -Infinity, Infinity, 500, { bytes: 2000, fetched: () => fetched++ });
    await chunks.next();
    await chunks.return(undefined);
    await settle();
    expect(fetched).toBe(1);
  });

  it("a failed fetch fails the read, and `fetched` is told", async () => {
    let fetched = 0;
    let n = 0;
    const fetch = async (from: number, to: number, maxDays: number): Promise<RangePieces> => {
      if (++n === 3) throw new Error("gone");
      return { blocks: blocks.filter((b) => b.start >= from - DAY + 1 && b.start <= to).slice(0, maxDays), rows: null };
    };
    await expect(all(readRange(fetch, -Infinity, Infinity, 1000, { bytes: 1e9, fetched: () => fetched++ }))).rejects.toThrow("gone");
    expect(fetched).toBe(1);
  });
});
