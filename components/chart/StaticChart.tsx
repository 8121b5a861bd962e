import { formatTick, valueTicks, type TickFormat } from "@/components/chart/ticks";

/**
 * The group page's chart as plain SVG (issue 17, item 3): drawn in the server's HTML, so that it
 * shows before any JavaScript runs (and without JavaScript); SeriesChart replaces it with the
 * interactive chart once hydrated. The same picture: the min–max band and the mean line over a
 * time axis with the same ticks, the value axis on round numbers.
 */
export interface StaticChartRow {
  t: number;
  mean: number | null;
  range: [number, number] | null;
  /** What is drawn (gaps.ts drawnRows). */
  line: number | null;
  band: [number, number] | null;
  alone: boolean;
}

interface StaticChartProps {
  rows: StaticChartRow[];
  start: number;
  end: number;
  axis: { ticks: number[]; format: TickFormat };
  offsetMinutes: number;
  yLabel: string;
  label: string;
  /** The time axis' title ("Time (UTC+02:00)", in the page's language). */
  timeLabel: string;
  /** A value as the page's language writes it (its decimal separator). */
  formatValue: (value: number) => string;
}

const WIDTH = 800;
const HEIGHT = 360;
const MARGIN = { top: 12, right: 16, bottom: 48, left: 72 };

/** Path commands of a polyline broken at missing values. */
function linePath(points: ([number, number] | null)[]): string {
  let d = "";
  let open = false;
  for (const p of points) {
    if (!p) {
      open = false;
      continue;
    }
    d += `${open ? "L" : "M"}${p[0].toFixed(1)} ${p[1].toFixed(1)}`;
    open = true;
  }
  return d;
}

/** The band between min and max, one closed shape per run of rows that have one to draw. */
function bandPath(rows: StaticChartRow[], x: (t: number) => number, y: (v: number) => number): string {
  let d = "";
  let run: StaticChartRow[] = [];
  const close = () => {
    if (run.length) {
      const top = run.map((r) => `${x(r.t).toFixed(1)} ${y(r.band![1]).toFixed(1)}`);
      const bottom = run.slice().reverse().map((r) => `${x(r.t).toFixed(1)} ${y(r.band![0]).toFixed(1)}`);
      d += `M${top.join("L")}L${bottom.join("L")}Z`;
    }
    run = [];
  };
  for (const r of rows) {
    if (r.band) run.push(r);
    else close();
  }
  close();
  return d;
}

export default function StaticChart({ rows, start, end, axis, offsetMinutes, yLabel, label, timeLabel, formatValue }: StaticChartProps) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of rows) {
    for (const v of r.range ?? (r.mean === null ? [] : [r.mean])) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (lo === Infinity) {
    lo = 0;
    hi = 1;
  } else if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const yTicks = valueTicks(lo, hi);
  lo = Math.min(lo, yTicks[0]);
  hi = Math.max(hi, yTicks[yTicks.length - 1]);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const span = Math.max(1, end - start);
  const x = (t: number) => MARGIN.left + ((t - start) / span) * plotW;
  const y = (v: number) => MARGIN.top + (1 - (v - lo) / (hi - lo)) * plotH;
  const inside = rows.filter((r) => r.t >= start && r.t <= end);
  const mean = linePath(inside.map((r) => (r.line === null ? null : [x(r.t), y(r.line)])));
  const band = bandPath(inside, x, y);
  const bottom = MARGIN.top + plotH;
  return (
    <svg className="chart-static" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" height="100%" role="img" aria-label={label} data-testid="static-chart">
      <g stroke="#dfe5ea" strokeDasharray="3 3">
        {yTicks.map((v) => <line key={`y${v}`} x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(v)} y2={y(v)} />)}
        {axis.ticks.filter((t) => t >= start && t <= end).map((t) => <line key={`x${t}`} x1={x(t)} x2={x(t)} y1={MARGIN.top} y2={bottom} />)}
      </g>
      <path d={band} fill="#7fb7dd" fillOpacity={0.45} stroke="none" />
      <path d={mean} fill="none" stroke="#0b4f85" strokeWidth={1.8} />
      {inside.some((r) => r.alone) && (
        <g fill="#0b4f85">
          {inside.filter((r) => r.alone).map((r) => <circle key={`p${r.t}`} cx={x(r.t).toFixed(1)} cy={y(r.mean!).toFixed(1)} r={2.5} />)}
        </g>
      )}
      <g fill="#3d4b57" fontSize={12}>
        <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={bottom} y2={bottom} stroke="#666" />
        <line x1={MARGIN.left} x2={MARGIN.left} y1={MARGIN.top} y2={bottom} stroke="#666" />
        {axis.ticks.filter((t) => t >= start && t <= end).map((t) => (
          <text key={`tx${t}`} x={x(t)} y={bottom + 16} textAnchor="middle">{formatTick(t, offsetMinutes, axis.format)}</text>
        ))}
        {yTicks.map((v) => <text key={`ty${v}`} x={MARGIN.left - 6} y={y(v) + 4} textAnchor="end">{formatValue(v)}</text>)}
        <text x={MARGIN.left + plotW / 2} y={HEIGHT - 6} textAnchor="middle" fontSize={13}>{timeLabel}</text>
        <text transform={`translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)`} textAnchor="middle" fontSize={13}>{yLabel}</text>
      </g>
    </svg>
  );
}
