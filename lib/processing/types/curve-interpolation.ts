/**
 * Curve interpolation (processing.md §1–§3): rating curves by period turn the group's Checked
 * (else Initial) series into another group's Initial series.
 */
import { z } from "zod";
import { date, number, pk, type Field, type Parsed } from "@/lib/http/fields";
import { listOf, objectOf, sharedSpec } from "@/lib/http/nested-fields";
import { existing } from "@/lib/domain/refs";
import { typeCode } from "@/lib/domain/timeseries-types";
import type { FieldErrors } from "@/lib/domain/errors";
import { DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
import { memberNameIn } from "@/lib/site/field-errors";
import { planCurveInterpolation, runCurveInterpolation } from "../numerics/curve-interpolation";
import type { CurvePeriod } from "../numerics/interpolate";
import { readSourceFrom, storedTarget } from "../reads";
import { fail, nested, ok, tooManyItems } from "./fields-kit";
import { cells, lineNumbers, lines, numberOrText, text, typedText } from "./form-kit";
import type { ProcessKind, RuleErrors } from "./kind";

export interface CurveConfig {
  /** Each period's points sorted by x. */
  periods: CurvePeriod[];
}

export interface CurveDefinition {
  type: "curve_interpolation";
  config: CurveConfig;
  targetGroupId: number;
}

/**
 * At most this many periods, and this many points in all of them (processing.md §1): what a
 * process stores and reads back with every list of processes, and what each run sorts.
 */
export const MAX_PERIODS = 1_000;
export const MAX_POINTS = 10_000;

export const CURVE_RULES = {
  tooManyPeriods: tooManyItems(MAX_PERIODS),
  tooManyPoints: (n: number) => `Ensure the periods have no more than ${MAX_POINTS} points in all (they have ${n}).`,
  noPeriods: "At least one period is required.",
  periodOrder: (i: number) => `periods[${i}]: start_date must not be after end_date.`,
  overlap: (i: number, j: number) => `periods[${i}] overlaps periods[${j}].`,
  fewPoints: (i: number) => `periods[${i}].points: At least two points are required.`,
  distinctX: (i: number, x: number) => `periods[${i}].points: Each x may appear only once (${x} appears twice).`,
} as const;

const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** At most this many "overlaps" messages: finding each one's earlier period costs a scan of the list. */
const MAX_OVERLAP_MESSAGES = 10;

/** The limits of the periods' size: none when within them. */
export function periodLimitErrors(periods: readonly CurvePeriod[]): string[] {
  if (periods.length > MAX_PERIODS) return [CURVE_RULES.tooManyPeriods];
  const points = periods.reduce((n, p) => n + p.points.length, 0);
  return points > MAX_POINTS ? [CURVE_RULES.tooManyPoints(points)] : [];
}

export function periodsErrors(periods: readonly CurvePeriod[]): string[] {
  if (periods.length === 0) return [CURVE_RULES.noPeriods];
  const errors: string[] = [];
  const starts = periods.map((p) => dayOf(p.start_date));
  const ends = periods.map((p) => dayOf(p.end_date));
  periods.forEach((p, i) => {
    if (starts[i] > ends[i]) errors.push(CURVE_RULES.periodOrder(i));
    if (p.points.length < 2) errors.push(CURVE_RULES.fewPoints(i));
    const xs = new Set<number>();
    for (const [x] of p.points) {
      if (xs.has(x)) {
        errors.push(CURVE_RULES.distinctX(i, x));
        break;
      }
      xs.add(x);
    }
  });
  errors.push(...overlapErrors(starts, ends));
  return errors;
}

/**
 * "periods[i] overlaps periods[j]" for each period i that overlaps an earlier one, j the first
 * such. Whether an earlier period overlaps i is a prefix-maximum query (of the ends of the
 * earlier periods that start by i's end) on a Fenwick tree over the start days, so that a list
 * of thousands of periods costs milliseconds, not a scan of every pair.
 */
function overlapErrors(starts: number[], ends: number[]): string[] {
  const n = starts.length;
  const sorted = [...starts].sort((a, b) => a - b);
  /** How many periods start on or before `day`. */
  const startingBy = (day: number) => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] <= day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const tree = new Float64Array(n + 1).fill(-Infinity);
  const errors: string[] = [];
  for (let i = 0; i < n && errors.length < MAX_OVERLAP_MESSAGES; i++) {
    let latestEnd = -Infinity;
    for (let k = startingBy(ends[i]); k > 0; k -= k & -k) latestEnd = Math.max(latestEnd, tree[k]);
    if (latestEnd >= starts[i]) {
      const j = starts.findIndex((s, j) => j < i && s <= ends[i] && starts[i] <= ends[j]);
      errors.push(CURVE_RULES.overlap(i, j));
    }
    // Equal start days share the rank of the last of them; the prefix of startingBy(day) includes it.
    for (let k = startingBy(starts[i]); k <= n; k += k & -k) tree[k] = Math.max(tree[k], ends[i]);
  }
  return errors;
}

// ---- the API's fields

export const PeriodsSchema = z.array(z.object({
  start_date: z.iso.date(), end_date: z.iso.date(),
  points: z.array(z.tuple([z.number(), z.number()])).min(2).meta({ description: "[x, y] pairs with distinct x (stored sorted by x)" }),
})).min(1).max(MAX_PERIODS)
  .meta({ description: `Periods that do not overlap, each from start_date 00:00 to end_date 23:59 UTC; at most ${MAX_POINTS} points in all` });

const coordinate = sharedSpec(() => number({ required: true }));

function point(value: unknown, at: string): Parsed<[number, number]> {
  const message = `${at}: A point is a pair of numbers [x, y].`;
  if (!Array.isArray(value) || value.length !== 2) return fail(message);
  const x = coordinate().parse(value[0]);
  const y = coordinate().parse(value[1]);
  return x.ok && y.ok ? ok([x.value!, y.value!]) : fail(message);
}

const periodSpec = sharedSpec(() => ({
  start_date: date({ required: true, nullable: false }),
  end_date: date({ required: true, nullable: false }),
  points: {
    required: true,
    parse: (raw: unknown) => listOf(raw, point),
    schema: z.array(z.tuple([z.number(), z.number()])),
  } as Field<[number, number][]>,
}));

/** The periods of a request, refused unread beyond the limits. */
function parsePeriods(value: unknown): Parsed<CurvePeriod[]> {
  if (Array.isArray(value) && value.length > MAX_PERIODS) return fail(CURVE_RULES.tooManyPeriods);
  const parsed = listOf(value, (p, at) => objectOf(p, periodSpec(), at) as Parsed<CurvePeriod>);
  if (!parsed.ok) return parsed;
  const limits = periodLimitErrors(parsed.value);
  return limits.length ? fail(...limits) : parsed;
}

// ---- the site's form: period blocks `period_<n>_…`, points pasted from a spreadsheet

/** The numbers of the periods present in the form (`period_0_…`, `period_1_…`). */
function periodNumbers(form: FormData): number[] {
  const seen = new Set<number>();
  for (const key of form.keys()) {
    const m = /^period_(\d{1,3})_/.exec(key);
    if (m) seen.add(Number(m[1]));
  }
  return [...seen].sort((a, b) => a - b);
}

function periodsInput(form: FormData): string {
  const out = [];
  for (const n of periodNumbers(form)) {
    const [start, end, points] = ["start_date", "end_date", "points"].map((f) => text(form, `period_${n}_${f}`));
    if (start === "" && end === "" && points === "") continue;
    const period: Record<string, unknown> = { points: lines(points).map((l) => cells(l).map(numberOrText)) };
    if (start !== "") period.start_date = start;
    if (end !== "") period.end_date = end;
    out.push(period);
  }
  return JSON.stringify(out);
}

/** "periods[0].points[2]: …" → "Period 1, line 3: …", numbered as the form's blocks and lines. */
function periodLineMessages(errors: FieldErrors, form: FormData, locale: Locale): FieldErrors {
  if (!errors.periods) return errors;
  const t = translator(locale, "processWords");
  const tf = translator(locale, "manageSeriesProcess");
  // The words formatted once, not per message: a form may get a message for each of thousands of lines.
  const periodWords = new Map<number, string>();
  const periodOf = (block: number) => periodWords.get(block) ?? periodWords.set(block, tf("fields.period", { n: block + 1 })).get(block)!;
  const [beforeLine, afterLine] = t("periodLine", { period: "\u0000", line: "\u0001" }).split("\u0001");
  // The API's period k is the k-th block that is not empty.
  const blocks = periodNumbers(form).filter((n) => ["start_date", "end_date", "points"].some((f) => text(form, `period_${n}_${f}`) !== ""));
  const shown = (k: string) => (blocks[Number(k)] === undefined ? undefined : blocks[Number(k)] + 1);
  // Each block's line numbers once: a message per bad point line must not re-read the text area.
  const pointLines = new Map<number, number[]>();
  const pointLine = (block: number, k: number) => {
    if (!pointLines.has(block)) pointLines.set(block, lineNumbers(typedText(form, `period_${block}_points`)));
    return pointLines.get(block)![k];
  };
  return {
    ...errors,
    periods: errors.periods.map((m) => {
      const overlap = /^periods\[(\d+)\] overlaps periods\[(\d+)\]\.$/.exec(m);
      if (overlap && shown(overlap[1]) && shown(overlap[2])) return t("overlap", { a: shown(overlap[1])!, b: shown(overlap[2])! });
      const match = /^periods\[(\d+)\](?:\.points\[(\d+)\]|\.(\w+))?: (.*)$/.exec(m);
      const block = match ? blocks[Number(match[1])] : undefined;
      if (!match || block === undefined) return m;
      const period = periodOf(block);
      if (match[2] !== undefined) {
        const line = pointLine(block, Number(match[2]));
        return `${beforeLine.replace("\u0000", period)}${line}${afterLine.replace("\u0000", period)}: ${match[4]}`;
      }
      return `${period}${match[3] ? `, ${memberNameIn(locale, match[3])}` : ""}: ${match[4]}`;
    }),
  };
}

/** How many period blocks a curve form shows: those typed or stored, and an empty one. */
export function periodCount(values: Record<string, unknown>): number {
  let max = -1;
  for (const key of Object.keys(values)) {
    const m = /^period_(\d{1,3})_/.exec(key);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 2;
}

// ---- words

function describeCurve(c: CurveConfig, targetGroupName: string, locale: Locale): string {
  const n = c.periods.length;
  const starts = c.periods.map((p) => p.start_date).sort();
  const ends = c.periods.map((p) => p.end_date).sort();
  return translator(locale, "processWords")("curve", { target: targetGroupName, count: n, n: String(n), start: starts[0], end: ends[n - 1] });
}

const INITIAL = typeCode("Initial");

export const curveInterpolation: ProcessKind<CurveDefinition> = {
  type: "curve_interpolation",

  fields: () => ({
    target_timeseries_group: pk(existing("timeseriesGroup"), { required: true }),
    periods: nested("periods", parsePeriods, periodsErrors, PeriodsSchema, { required: true }),
  }),
  responseSchema: () => ({
    target_timeseries_group: z.int().positive().optional().meta({ description: "curve_interpolation" }),
    periods: PeriodsSchema.optional().meta({ description: "curve_interpolation" }),
  }),
  definition: (sent, stored) => ({
    type: "curve_interpolation",
    targetGroupId: (sent.target_timeseries_group as number | undefined) ?? stored!.targetGroupId,
    config: { periods: (sent.periods as CurvePeriod[] | undefined) ?? stored!.config.periods },
  }),
  output: (d) => ({ target_timeseries_group: d.targetGroupId, periods: d.config.periods }),
  errors(d): RuleErrors {
    const limits = periodLimitErrors(d.config.periods);
    const periods = limits.length ? limits : periodsErrors(d.config.periods);
    return periods.length ? { periods } : {};
  },
  normalized: (d) => ({ ...d, config: { periods: d.config.periods.map((period) => ({ ...period, points: [...period.points].sort((a, b) => a[0] - b[0]) })) } }),
  uniqueKey: () => null,
  onePerGroup: false,

  fromStored: (config, targetGroupId) => ({ type: "curve_interpolation", config: config as CurveConfig, targetGroupId: Number(targetGroupId) }),
  toStored: (d) => ({ config: d.config, targetGroupId: d.targetGroupId }),

  name: (d) => `curve interpolation into group #${d.targetGroupId}`,
  describe: (d, { targetGroupName, locale = DEFAULT_LOCALE }) =>
    describeCurve(d.config, targetGroupName ?? translator(locale, "processWords")("groupFallback", { id: String(d.targetGroupId) }), locale),

  reads: "checked, else initial",
  targetGroupId: (d) => d.targetGroupId,
  target: (_groupId, d) => ({ groupId: d.targetGroupId, type: INITIAL }),

  usesZone: false,
  async compute(d, { source, target, dirtyFrom }) {
    const plan = planCurveInterpolation(dirtyFrom);
    const stored = storedTarget(target, plan.targetFrom);
    return { plan, target: runCurveInterpolation(d.config, await readSourceFrom(source, plan.sourceFrom), plan.targetFrom), stored };
  },

  form: {
    label: "curve interpolation",
    add: { summary: "Add a curve interpolation", submit: "Add curve interpolation", rank: 3, initial: {} },
    ownKeys: /^period_/,
    toApi: (form) => ({ periods: periodsInput(form) }),
    values(d) {
      const values: Record<string, string> = { target_timeseries_group: String(d.targetGroupId) };
      d.config.periods.forEach((period, i) => {
        values[`period_${i}_start_date`] = period.start_date;
        values[`period_${i}_end_date`] = period.end_date;
        values[`period_${i}_points`] = period.points.map(([x, y]) => `${x}\t${y}`).join("\n");
      });
      return values;
    },
    lineMessages: periodLineMessages,
  },
};
