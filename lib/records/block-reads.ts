import { newChartAggregates } from "@/lib/formats/chart";
import {
  addToRange, aggregateInto, countWithin, daysOfRange, decodeDay, EMPTY_CHUNK, indexOf, type Piece, readRange, recordAt, type RangePieces,
  type StoredDay,
} from "@/lib/records/blocks";
import {
  addAggregate, BLOCK_PLAN_MIN_WIDTH, blockStart, type BlockRow, type ChartAggregates, countPlan, DAY, DIFF_CHUNK, type FoundRecord,
  mergeWholeBlocks, newRangeAggregate, type RangeAggregate, type RecordChunk, safeBound,
} from "@/lib/records/types";

/** An aggregate row of the database: count, sum, min, max (nulls when there are no values). */
export type AggregateRow = [count: number | null, sum: number | null, min: number | null, max: number | null];

/** What a lookup asks of a record (RecordsStore.latest). */
export interface Match {
  readonly valued?: boolean;
  readonly value?: number;
}

/**
 * The reads of the block stores (docs/decisions/0019), on a few queries that each database
 * answers in its own SQL: every plan over whole days takes them from the daily summaries, and
 * the records of the days at its edges are decoded.
 */
export abstract class BlockReads {
  /** Whether the database's SUM compensates (SqlSum): sums of records are computed as the row store's SQL did. */
  protected abstract readonly compensatedSum: boolean;
  /** One statement: the blocks of the days from the one holding `from` to `to` (at most maxDays) and the rows of [from, to] (at most maxRows). */
  protected abstract fetchRange(seriesId: number, from: number, to: number, maxDays: number, maxRows: number): Promise<RangePieces>;
  /** One statement: the stored days of (series, day start) keys, blocks or rows, by series and day. */
  protected abstract fetchDays(keys: readonly (readonly [number, number])[]): Promise<Map<number, Map<number, StoredDay>>>;
  /** SUM(count) of the blocks of days [from, to]. */
  protected abstract countDays(seriesId: number, from: number, to: number): Promise<number>;
  /** The blocks of days [from, to] in order: start, value count, min, max, sum. */
  protected abstract blockRows(seriesId: number, from: number, to: number): Promise<BlockRow[]>;
  /** For each range of days [from, to], the aggregate of the non-null values of its blocks (PostgreSQL: in one statement). */
  protected abstract aggregateDays(seriesId: number, ranges: readonly (readonly [number, number])[]): Promise<AggregateRow[]>;
  /** Up to `limit` starts of days within [from, to] whose summaries allow a record that matches, in the order asked. */
  protected abstract candidateDays(seriesId: number, from: number, to: number, order: "ASC" | "DESC", match: Match, limit: number): Promise<number[]>;

  read(seriesId: number, from: number, to: number, chunkSize = DIFF_CHUNK): AsyncGenerator<RecordChunk> {
    return readRange((a, b, maxDays, maxRows) => this.fetchRange(seriesId, a, b, maxDays, maxRows), from, to, chunkSize);
  }

  /** The records of the days that the ranges touch, by day start. */
  private async daysOf(seriesId: number, ranges: readonly (readonly [number, number])[]): Promise<Map<number, RecordChunk>> {
    const days = [...new Set(ranges.flatMap(([lo, hi]) => daysOfRange(lo, hi)))];
    if (days.length === 0) return new Map();
    const stored = (await this.fetchDays(days.map((d) => [seriesId, d] as const))).get(seriesId) ?? new Map<number, StoredDay>();
    return new Map([...stored].map(([d, day]) => [d, decodeDay(day)]));
  }

  async count(seriesId: number, from: number, to: number): Promise<number> {
    const plan = countPlan(safeBound(from), safeBound(to));
    const [whole, days] = await Promise.all([
      plan.wholeFrom <= plan.wholeTo ? this.countDays(seriesId, plan.wholeFrom, plan.wholeTo) : 0,
      this.daysOf(seriesId, plan.edges),
    ]);
    let n = whole;
    for (const [lo, hi] of plan.edges) for (const d of daysOfRange(lo, hi)) if (days.has(d)) n += countWithin(days.get(d)!, lo, hi);
    return n;
  }

  async aggregate(seriesId: number, S: number, E: number, N: number): Promise<ChartAggregates> {
    const out = newChartAggregates(N);
    if ((E - S) / N < BLOCK_PLAN_MIN_WIDTH) {
      const pieces: Piece[] = [];
      for await (const chunk of this.read(seriesId, S, E)) pieces.push({ chunk, lo: S, hi: E });
      aggregateInto(out, S, E, N, pieces, this.compensatedSum);
      return out;
    }
    const edges = mergeWholeBlocks(out, S, E, N, await this.blockRows(seriesId, S - DAY + 1, E));
    const days = await this.daysOf(seriesId, edges);
    aggregateInto(out, S, E, N, piecesOf(days, edges), this.compensatedSum);
    return out;
  }

  async aggregateRanges(seriesId: number, ranges: readonly (readonly [number, number])[]): Promise<RangeAggregate[]> {
    const plans = ranges.map(([lo, hi]) => countPlan(safeBound(lo), safeBound(hi)));
    const withWhole = plans.filter((p) => p.wholeFrom <= p.wholeTo);
    const [aggregates, days] = await Promise.all([
      withWhole.length ? this.aggregateDays(seriesId, withWhole.map((p) => [p.wholeFrom, p.wholeTo] as const)) : [],
      this.daysOf(seriesId, plans.flatMap((p) => p.edges)),
    ]);
    const wholes = new Map(withWhole.map((p, k) => [p, aggregates[k]]));
    return plans.map((plan) => {
      const out = newRangeAggregate();
      const whole = wholes.get(plan);
      if (whole) addAggregate(out, ...whole);
      // Each edge is aggregated on its own and added, as the row store's query of each did.
      for (const edge of plan.edges) addToRange(out, piecesOf(days, [edge]), this.compensatedSum);
      return out;
    });
  }

  latest(seriesId: number, lo: number, hi: number, match: Match = {}): Promise<FoundRecord | null> {
    return this.search(seriesId, lo, hi, "DESC", match);
  }

  earliest(seriesId: number, lo: number, hi: number): Promise<FoundRecord | null> {
    return this.search(seriesId, lo, hi, "ASC", {});
  }

  /**
   * The latest (DESC) or earliest (ASC) record of [lo, hi] that matches: the days whose
   * summaries allow a match, a few at a time, decoded until one holds it.
   */
  private async search(seriesId: number, lo: number, hi: number, order: "ASC" | "DESC", match: Match): Promise<FoundRecord | null> {
    lo = safeBound(Math.ceil(lo));
    hi = safeBound(Math.floor(hi));
    const matches = (v: number) => (match.value !== undefined ? v === match.value : match.valued ? v === v : true);
    for (let a = blockStart(lo), b = hi, limit = 2; a <= b; limit = Math.min(64, limit * 2)) {
      const days = await this.candidateDays(seriesId, a, b, order, match, limit);
      if (days.length === 0) return null;
      const stored = (await this.fetchDays(days.map((d) => [seriesId, d] as const))).get(seriesId);
      for (const d of days) {
        const day = stored?.get(d);
        if (!day) continue;
        const chunk = decodeDay(day);
        const step = order === "DESC" ? -1 : 1;
        for (let k = order === "DESC" ? chunk.length - 1 : 0; k >= 0 && k < chunk.length; k += step) {
          const t = chunk.timestamps[k];
          if (t >= lo && t <= hi && matches(chunk.values[k])) return recordAt(chunk, k);
        }
      }
      if (days.length < limit) return null;
      if (order === "DESC") b = days[days.length - 1] - 1;
      else a = days[days.length - 1] + 1;
    }
    return null;
  }

  async readDays(seriesId: number, days: readonly number[]): Promise<RecordChunk[]> {
    const stored = (await this.fetchDays([...new Set(days)].map((d) => [seriesId, d] as const))).get(seriesId);
    return days.map((d) => {
      const day = stored?.get(d);
      return day ? decodeDay(day) : EMPTY_CHUNK;
    });
  }

  async recordsAt(pairs: readonly (readonly [number, number])[]): Promise<(FoundRecord | null)[]> {
    const keys = new Map<string, readonly [number, number]>();
    for (const [id, t] of pairs) keys.set(`${id}:${blockStart(t)}`, [id, blockStart(t)]);
    const stored = await this.fetchDays([...keys.values()]);
    const decoded = new Map<string, RecordChunk>();
    return pairs.map(([id, t]) => {
      const key = `${id}:${blockStart(t)}`;
      let chunk = decoded.get(key);
      if (!chunk) {
        const day = stored.get(id)?.get(blockStart(t));
        if (!day) return null;
        decoded.set(key, (chunk = decodeDay(day)));
      }
      const k = indexOf(chunk, t);
      return k < 0 ? null : recordAt(chunk, k);
    });
  }
}

/** The records of the ranges, from the days holding them, in order. */
function piecesOf(days: Map<number, RecordChunk>, ranges: readonly (readonly [number, number])[]): Piece[] {
  const out: Piece[] = [];
  for (const [lo, hi] of ranges) for (const d of daysOfRange(lo, hi)) if (days.has(d)) out.push({ chunk: days.get(d)!, lo, hi });
  return out;
}
