/**
 * Which empty chart intervals are gaps in the data, and which only mean that the records are
 * sparser than the chart's intervals (formats.md §7: an interval without records is null).
 * Zoomed in to a day of a 10-minute series, every other interval of 200 is empty; drawn as
 * breaks, each record would be a line of one point, which is invisible. So the line and the band
 * go on across empty intervals where no record can be missing: between intervals whose middles
 * are at most one time step plus one interval apart (records one step apart fall in intervals at
 * most that far apart). A series with no time step (irregular) has no missing records to show,
 * so its points are always joined. A point still alone after that is marked with a dot.
 */

export interface GapRow {
  t: number;
  mean: number | null;
  range: [number, number] | null;
}

export interface DrawnRow {
  /** The mean to draw: the row's own, or on the straight line between its neighbours across a joined gap. */
  line: number | null;
  /** The same for the min–max band. */
  band: [number, number] | null;
  /** A value with nothing drawn on either side of it: shown as a dot. */
  alone: boolean;
}

export { stepSeconds } from "@/lib/domain/compare";

const between = (a: number, b: number, f: number) => a + (b - a) * f;

/**
 * How to draw `rows` (in time order): the values to draw where an empty interval is joined over,
 * and the points that stand alone. `step` is the series' time step in seconds, null when irregular.
 */
export function drawnRows<R extends GapRow>(rows: R[], step: number | null): DrawnRow[] {
  const drawn: DrawnRow[] = rows.map((r) => ({ line: r.mean, band: r.range, alone: false }));
  const width = rows.length > 1 ? (rows[rows.length - 1].t - rows[0].t) / (rows.length - 1) : 0;
  const joined = (a: R, b: R) => step === null || b.t - a.t <= step + width + 1;
  /** Joins each value of `key` to the previous one when no record can be missing between them; whether each row is joined to another. */
  const join = (key: "mean" | "range") => {
    let previous = -1;
    const linked = new Array<boolean>(rows.length).fill(false);
    rows.forEach((r, i) => {
      if (r[key] === null) return;
      if (previous >= 0 && joined(rows[previous], r)) {
        linked[previous] = linked[i] = true;
        const a = rows[previous];
        for (let k = previous + 1; k < i; k++) {
          const f = (rows[k].t - a.t) / (r.t - a.t);
          if (key === "mean") drawn[k].line = between(a.mean!, r.mean!, f);
          else drawn[k].band = [between(a.range![0], r.range![0], f), between(a.range![1], r.range![1], f)];
        }
      }
      previous = i;
    });
    return linked;
  };
  const lineLinked = join("mean");
  join("range");
  rows.forEach((r, i) => {
    drawn[i].alone = r.mean !== null && !lineLinked[i];
  });
  return drawn;
}
