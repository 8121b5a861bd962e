/**
 * Time axis ticks on "nice" boundaries of the display zone (hours, days, months, years) for a
 * range of epoch seconds, and the label format that suits their spacing.
 */
const HOUR = 3600;
const DAY = 86400;
const STEPS = [600, 1800, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY];
const MONTH_STEPS = [1, 2, 3, 6, 12, 24, 60, 120];

export type TickFormat = "time" | "day" | "month" | "year";

export function timeTicks(start: number, end: number, offsetMinutes: number, maxTicks = 7): { ticks: number[]; format: TickFormat } {
  const span = Math.max(1, end - start);
  const offset = offsetMinutes * 60;
  const fixed = STEPS.find((s) => span / s <= maxTicks);
  if (fixed !== undefined) {
    const ticks: number[] = [];
    // Weekly ticks fall on Mondays of the zone; others on multiples of the step since the zone's midnight.
    const shift = fixed === 7 * DAY || fixed === 14 * DAY ? 4 * DAY : 0;
    let t = Math.ceil((start + offset - shift) / fixed) * fixed - offset + shift;
    for (; t <= end; t += fixed) ticks.push(t);
    return { ticks, format: fixed < DAY ? "time" : "day" };
  }
  const months = MONTH_STEPS.find((m) => span / (m * 30.44 * DAY) <= maxTicks) ?? 240;
  const local = new Date((start + offset) * 1000);
  const y = local.getUTCFullYear();
  let m = local.getUTCMonth();
  // First boundary at or after start that is a multiple of the step (months counted from January).
  m = Math.ceil((m + (local.getUTCDate() > 1 || local.getUTCHours() > 0 || local.getUTCMinutes() > 0 ? 1 : 0)) / months) * months;
  const ticks: number[] = [];
  for (let i = 0; i < 200; i++) {
    const d = new Date(0);
    d.setUTCFullYear(y + Math.floor(m / 12), m % 12, 1);
    const t = d.getTime() / 1000 - offset;
    if (t > end) break;
    if (t >= start) ticks.push(t);
    m += months;
    if (m >= 12 * 1000) break;
  }
  return { ticks, format: months >= 12 ? "year" : "month" };
}

const pad = (n: number) => String(n).padStart(2, "0");

export function formatTick(t: number, offsetMinutes: number, format: TickFormat): string {
  const d = new Date((t + offsetMinutes * 60) * 1000);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  switch (format) {
    case "year":
      return String(d.getUTCFullYear());
    case "month":
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
    case "day":
      return date.slice(5) === "01-01" ? date : date.slice(5);
    default:
      return d.getUTCHours() === 0 && d.getUTCMinutes() === 0 ? date.slice(5) : `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  }
}

/** About five round values (1, 2, 2.5 or 5 × a power of ten apart) covering [lo, hi]. */
export function valueTicks(lo: number, hi: number): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** valueTicks of [lo, hi], widened by a step at either end that they do not reach: the axis then begins and ends on a tick. */
export function roundedAxis(lo: number, hi: number): number[] {
  const ticks = valueTicks(lo, hi);
  if (ticks.length < 2) return ticks;
  const step = ticks[1] - ticks[0];
  const round = (v: number) => Number(v.toPrecision(12));
  if (ticks[0] > lo) ticks.unshift(round(ticks[0] - step));
  if (ticks[ticks.length - 1] < hi) ticks.push(round(ticks[ticks.length - 1] + step));
  return ticks;
}
