/** The charts of a synoptic station page (synoptic.md §2); pure, for the server and the browser. */

/** The reference charts the 24 hours before the last common date: 23 h 59 min back, inclusive. */
export const CHART_SPAN_SECONDS = 86_340;

/**
 * The y range of a chart: the values and the limits, padded by 5% (not below zero when none is
 * negative), and widened to the default chart range when given (as the reference does: the default is a minimum extent, not a clamp).
 */
export function chartDomain(values: readonly (number | null)[], limits: readonly (number | null)[], defaultMin: number | null, defaultMax: number | null): [number, number] {
  const shown = [...values, ...limits].filter((v): v is number => v !== null && Number.isFinite(v));
  if (shown.length === 0) {
    const lo = defaultMin ?? 0;
    return [lo, defaultMax !== null && defaultMax > lo ? defaultMax : lo + 1];
  }
  let lo = Math.min(...shown);
  let hi = Math.max(...shown);
  const pad = hi > lo ? (hi - lo) * 0.05 : Math.max(Math.abs(lo) * 0.05, 0.5);
  // The padding does not take values that are never negative (rainfall, say) below zero.
  lo = lo >= 0 ? Math.max(0, lo - pad) : lo - pad;
  hi += pad;
  if (defaultMin !== null) lo = Math.min(lo, defaultMin);
  if (defaultMax !== null) hi = Math.max(hi, defaultMax);
  return [lo, hi];
}
