"use client";

import { memo, useEffect, useMemo, useRef, useState, type PointerEvent } from "react";
import type { Overlay } from "@/components/chart/Compare";
import { formatTick, roundedAxis, type TickFormat } from "@/components/chart/ticks";

/**
 * The workbench's chart as SVG drawn here (corrections.md §3, §4): the series (every record, or
 * min–max bands with the mean), its flagged records, a preview's values, the compared series on
 * an axis per unit, the selection, and a hover read-out. Hand-drawn rather than with the charting
 * library: a year of records and two overlays are a few path strings, built once per change of
 * what is drawn; the library's per-point components made the page seconds slower to become usable.
 */
export interface DrawnRow {
  t: number;
  mean: number | null;
  band: [number, number] | null;
}

export interface WorkbenchChartProps {
  rows: DrawnRow[];
  /** Consecutive rows farther apart than this (seconds) are not joined: a gap in the data. */
  maxStep: number;
  flagged: { t: number; v: number | null; flags: string }[];
  /** A previewed operation's values after it. */
  after: { t: number; v: number | null }[];
  overlays: Overlay[];
  /** Unit → axis id ("left" for the series' own unit), as unitAxes gives them. */
  axes: Map<string, string>;
  start: number;
  end: number;
  timeAxis: { ticks: number[]; format: TickFormat };
  offsetMinutes: number;
  selection: { from: number; to: number } | null;
  onSelect: (from: number, to: number) => void;
  /** Words and number formats of the page's language. */
  text: {
    label: string;
    timeLabel: string;
    valueLabel: string;
    lineName: string;
    minMax: string;
    after: string;
    flaggedWith: (flags: string) => string;
    formatValue: (v: number) => string;
    formatTime: (t: number) => string;
  };
}

const AXIS_WIDTH = 64;
const MARGIN = { top: 12, bottom: 44, left: 72, right: 16 };
const COLOURS = { grid: "#dfe5ea", axis: "#666", text: "#3d4b57", band: "#7fb7dd", line: "#0b4f85", flagged: "#d97706", after: "#dc2626" };

/** Index of the point nearest to t in points sorted by t. */
function nearest<T extends { t: number }>(points: T[], t: number): number {
  let lo = 0;
  let hi = points.length - 1;
  if (hi < 0) return -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid].t < t) lo = mid;
    else hi = mid;
  }
  return Math.abs(points[lo].t - t) <= Math.abs(points[hi].t - t) ? lo : hi;
}

/** Path commands of a polyline, broken at missing values and at steps longer than maxStep. */
function linePath(points: { t: number; v: number | null }[], x: (t: number) => number, y: (v: number) => number, maxStep = Infinity): string {
  const parts: string[] = [];
  let previous: number | null = null;
  for (const p of points) {
    if (p.v === null) {
      previous = null;
      continue;
    }
    parts.push(`${previous === null || p.t - previous > maxStep ? "M" : "L"}${x(p.t).toFixed(1)} ${y(p.v).toFixed(1)}`);
    previous = p.t;
  }
  return parts.join("");
}

/** The min–max band, one closed shape per run of rows that have one, broken where the line is. */
function bandPath(rows: DrawnRow[], x: (t: number) => number, y: (v: number) => number, maxStep: number): string {
  let d = "";
  let run: DrawnRow[] = [];
  const close = () => {
    if (run.length) {
      const top = run.map((r) => `${x(r.t).toFixed(1)} ${y(r.band![1]).toFixed(1)}`);
      const bottom = run.map((r) => `${x(r.t).toFixed(1)} ${y(r.band![0]).toFixed(1)}`).reverse();
      d += `M${top.join("L")}L${bottom.join("L")}Z`;
    }
    run = [];
  };
  for (const r of rows) {
    if (!r.band || (run.length && r.t - run[run.length - 1].t > maxStep)) close();
    if (r.band) run.push(r);
  }
  close();
  return d;
}

/** Round values covering what an axis shows, and the scale from value to pixel. */
function valueAxis(values: Iterable<number>, top: number, bottom: number) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity) [lo, hi] = [0, 1];
  else if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
  // The axis begins and ends on a round value.
  const ticks = roundedAxis(lo, hi);
  lo = Math.min(lo, ticks[0]);
  hi = Math.max(hi, ticks[ticks.length - 1]);
  return { ticks, y: (v: number) => top + (1 - (v - lo) / (hi - lo)) * (bottom - top) };
}

function* ownValues(rows: DrawnRow[], after: { v: number | null }[]) {
  for (const r of rows) {
    if (r.band) yield* r.band;
    else if (r.mean !== null) yield r.mean;
  }
  for (const p of after) if (p.v !== null) yield p.v;
}

function* overlayValues(overlays: Overlay[]) {
  for (const o of overlays) for (const p of o.points) if (p.v !== null) yield p.v;
}

function WorkbenchChart(props: WorkbenchChartProps) {
  const { rows, maxStep, flagged, after, overlays, axes, start, end, timeAxis, offsetMinutes, selection, onSelect, text } = props;
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  useEffect(() => {
    const element = box.current!;
    const observer = new ResizeObserver(() => setSize({ width: element.clientWidth, height: element.clientHeight }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const [hover, setHover] = useState<number | null>(null);

  const width = size?.width ?? 0;
  const height = size?.height ?? 0;
  const otherAxes = [...axes.entries()].filter(([, id]) => id !== "left");
  const left = MARGIN.left;
  const right = width - MARGIN.right - otherAxes.length * AXIS_WIDTH;
  const top = MARGIN.top;
  const bottom = height - MARGIN.bottom;
  const span = Math.max(1, end - start);
  const x = (t: number) => left + ((t - start) / span) * (right - left);

  // What is drawn is rebuilt only when what it shows changes, not on a hover or a drag.
  const drawing = useMemo(() => {
    if (!size) return null;
    const xOf = (t: number) => left + ((t - start) / span) * (right - left);
    const own = valueAxis(ownValues(rows, after), top, bottom);
    const scales = new Map<string, ReturnType<typeof valueAxis>>([["left", own]]);
    for (const [unit, id] of otherAxes) scales.set(id, valueAxis(overlayValues(overlays.filter((o) => o.unit === unit)), top, bottom));
    const line = linePath(rows.map((r) => ({ t: r.t, v: r.mean })), xOf, own.y, maxStep);
    const band = bandPath(rows, xOf, own.y, maxStep);
    const diamonds = flagged.filter((p) => p.v !== null && p.t >= start && p.t <= end)
      .map((p) => { const cx = xOf(p.t); const cy = own.y(p.v!); return `M${cx.toFixed(1)} ${(cy - 4).toFixed(1)}l4 4l-4 4l-4 -4Z`; }).join("");
    const afterLine = linePath(after, xOf, own.y);
    const overlayLines = overlays.map((o) => ({ o, d: linePath(o.points.map((p) => ({ t: p.t, v: p.line })), xOf, scales.get(axes.get(o.unit) ?? "left")!.y) }));
    return { scales, line, band, diamonds, afterLine, overlayLines };
    // otherAxes is derived from axes; the scale functions from the numbers listed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [size, rows, maxStep, flagged, after, overlays, axes, start, span, left, right, top, bottom]);

  const timeAt = (e: PointerEvent<SVGSVGElement>) => {
    const px = e.clientX - e.currentTarget.getBoundingClientRect().left;
    return Math.round(start + (Math.min(Math.max(px, left), right) - left) / (right - left) * span);
  };
  const inPlot = (e: PointerEvent<SVGSVGElement>) => {
    const px = e.clientX - e.currentTarget.getBoundingClientRect().left;
    return px >= left && px <= right;
  };
  const handlers = {
    onPointerDown: (e: PointerEvent<SVGSVGElement>) => {
      if (e.button !== 0 || !inPlot(e)) return;
      e.currentTarget.setPointerCapture(e.pointerId);
      const t = timeAt(e);
      setDrag({ from: t, to: t });
      setHover(null);
    },
    onPointerMove: (e: PointerEvent<SVGSVGElement>) => {
      if (drag) setDrag({ from: drag.from, to: timeAt(e) });
      else setHover(inPlot(e) ? timeAt(e) : null);
    },
    onPointerUp: () => {
      if (drag && drag.from !== drag.to) onSelect(Math.min(drag.from, drag.to), Math.max(drag.from, drag.to));
      setDrag(null);
    },
    onPointerCancel: () => setDrag(null),
    onPointerLeave: () => setHover(null),
  };

  const own = drawing?.scales.get("left");
  const shade = (from: number, to: number, fill: string, opacity: number, stroke?: string) => {
    const a = x(Math.max(start, Math.min(from, to)));
    const b = x(Math.min(end, Math.max(from, to)));
    return b >= a ? <rect x={a} y={top} width={Math.max(1, b - a)} height={bottom - top} fill={fill} fillOpacity={opacity} stroke={stroke} pointerEvents="none" /> : null;
  };
  const timeTicks = timeAxis.ticks.filter((t) => t >= start && t <= end);

  return (
    <div ref={box} className="workbench-plot">
      {drawing && own && (
        <svg width={width} height={height} role="img" aria-label={text.label} style={{ userSelect: "none", cursor: "crosshair", touchAction: "pan-y" }} {...handlers}>
          <g className="chart-grid" stroke={COLOURS.grid} strokeDasharray="3 3">
            <rect x={left} y={top} width={right - left} height={bottom - top} fill="none" stroke="none" />
            {own.ticks.map((v) => <line key={`y${v}`} x1={left} x2={right} y1={own.y(v)} y2={own.y(v)} />)}
            {timeTicks.map((t) => <line key={`x${t}`} x1={x(t)} x2={x(t)} y1={top} y2={bottom} />)}
          </g>
          {/* The axes under the marks: a record at the range's edge stays within reach of the pointer. */}
          <g className="time-axis" fill={COLOURS.text} fontSize={12}>
            <line x1={left} x2={right} y1={bottom} y2={bottom} stroke={COLOURS.axis} />
            {timeTicks.map((t) => <text key={t} x={x(t)} y={bottom + 16} textAnchor="middle">{formatTick(t, offsetMinutes, timeAxis.format)}</text>)}
            <text x={(left + right) / 2} y={height - 8} textAnchor="middle" fontSize={13}>{text.timeLabel}</text>
          </g>
          <g className="value-axis" fill={COLOURS.text} fontSize={12}>
            <line x1={left} x2={left} y1={top} y2={bottom} stroke={COLOURS.axis} />
            {own.ticks.map((v) => <text key={v} x={left - 6} y={own.y(v) + 4} textAnchor="end">{text.formatValue(v)}</text>)}
            <text transform={`translate(16 ${(top + bottom) / 2}) rotate(-90)`} textAnchor="middle" fontSize={13}>{text.valueLabel}</text>
          </g>
          {otherAxes.map(([unit, id], i) => {
            const scale = drawing.scales.get(id)!;
            const ax = right + i * AXIS_WIDTH;
            return (
              <g key={id} className="value-axis" fill={COLOURS.text} fontSize={12}>
                <line x1={ax} x2={ax} y1={top} y2={bottom} stroke={COLOURS.axis} />
                {scale.ticks.map((v) => <text key={v} x={ax + 6} y={scale.y(v) + 4}>{text.formatValue(v)}</text>)}
                <text transform={`translate(${ax + AXIS_WIDTH - 10} ${(top + bottom) / 2}) rotate(-90)`} textAnchor="middle" fontSize={13}>{unit}</text>
              </g>
            );
          })}
          <path className="chart-band" d={drawing.band} fill={COLOURS.band} fillOpacity={0.45} stroke="none" />
          <path className="chart-line" d={drawing.line} fill="none" stroke={COLOURS.line} strokeWidth={1.5} />
          <path className="chart-flagged" d={drawing.diamonds} fill={COLOURS.flagged} />
          {drawing.afterLine && <path className="chart-line chart-after" d={drawing.afterLine} fill="none" stroke={COLOURS.after} strokeDasharray="4 3" strokeWidth={1.8} />}
          {drawing.overlayLines.map(({ o, d }) => <path key={o.seriesId} className="chart-line" d={d} fill="none" stroke={o.colour} strokeWidth={1.2} />)}
          {selection && shade(selection.from, selection.to, "#f59e0b", 0.15, "#d97706")}
          {drag && drag.from !== drag.to && shade(drag.from, drag.to, COLOURS.line, 0.12)}
          {hover !== null && <HoverGuide {...props} x={x} own={own} scales={drawing.scales} t={hover} top={top} bottom={bottom} />}
        </svg>
      )}
      {drawing && hover !== null && <HoverText {...props} t={hover} x={x} right={right} top={top} />}
    </div>
  );
}

/** The row, flagged record, preview value and overlay points nearest to a time. */
function near(props: WorkbenchChartProps, t: number) {
  const row = props.rows[nearest(props.rows, t)];
  const flag = props.flagged[nearest(props.flagged, t)];
  const after = props.after[nearest(props.after, t)];
  const overlays = props.overlays.map((o) => ({ o, p: o.points[nearest(o.points, t)] }));
  return { row, flag, after, overlays };
}

function HoverGuide(props: WorkbenchChartProps & { t: number; x: (t: number) => number; own: ReturnType<typeof valueAxis>; scales: Map<string, ReturnType<typeof valueAxis>>; top: number; bottom: number }) {
  const { row, overlays } = near(props, props.t);
  if (!row) return null;
  const cx = props.x(row.t);
  return (
    <g className="chart-hover" pointerEvents="none">
      <line x1={cx} x2={cx} y1={props.top} y2={props.bottom} stroke="#8a98a5" />
      {row.mean !== null && <circle cx={cx} cy={props.own.y(row.mean)} r={3.5} fill={COLOURS.line} />}
      {overlays.map(({ o, p }) => p && p.v !== null && (
        <circle key={o.seriesId} cx={props.x(p.t)} cy={props.scales.get(props.axes.get(o.unit) ?? "left")!.y(p.v)} r={3} fill={o.colour} />
      ))}
    </g>
  );
}

function HoverText(props: WorkbenchChartProps & { t: number; x: (t: number) => number; right: number; top: number }) {
  const { text } = props;
  const { row, flag, after, overlays } = near(props, props.t);
  if (!row) return null;
  // The row's own record, or one within half its bucket: the same instant as far as the eye can tell.
  const close = (t: number) => Math.abs(t - row.t) <= (Number.isFinite(props.maxStep) ? props.maxStep / 2 : 0);
  const cx = props.x(row.t);
  const style = cx > (props.right * 2) / 3 ? { right: `calc(100% - ${cx - 12}px)` } : { left: cx + 12 };
  return (
    <div className="chart-tooltip workbench-tooltip" style={{ position: "absolute", top: props.top, pointerEvents: "none", ...style }}>
      <div><strong>{text.formatTime(row.t)}</strong></div>
      {row.mean !== null && <div>{text.lineName}: {text.formatValue(row.mean)}</div>}
      {row.band && <div>{text.minMax}: {text.formatValue(row.band[0])} – {text.formatValue(row.band[1])}</div>}
      {flag && flag.v !== null && close(flag.t) && <div className="legend-flagged">{text.flaggedWith(flag.flags)}: {text.formatValue(flag.v)}</div>}
      {after && after.v !== null && close(after.t) && <div>{text.after}: {text.formatValue(after.v)}</div>}
      {overlays.map(({ o, p }) => p && p.v !== null && <div key={o.seriesId} style={{ color: o.colour }}>{o.label}: {text.formatValue(p.v)}</div>)}
    </div>
  );
}

export default memo(WorkbenchChart);
