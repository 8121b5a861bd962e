"use client";

import {
  Area, CartesianGrid, ComposedChart, Line, ReferenceArea, ResponsiveContainer, Tooltip, XAxis, YAxis,
} from "recharts";
import { formatTick, type TickFormat } from "@/components/chart/ticks";
import { formatDateTime } from "@/lib/site/time";

/**
 * The group page's interactive chart (recharts): a module of its own, which SeriesChart loads
 * only once the page has hydrated (issue 17, item 3). Recharts is most of the page's
 * JavaScript; kept out of the page's first scripts, it is neither fetched nor compiled while
 * the browser draws the server's SVG chart, which stands in until this one is ready.
 */
export interface Row {
  t: number;
  mean: number | null;
  range: [number, number] | null;
  /** The values as the endpoint wrote them (with the group's precision). */
  text: { mean: string | null; min: string | null; max: string | null };
}

export interface Drag {
  from: number;
  to: number;
}

interface InteractiveChartProps {
  rows: Row[];
  shownStart: number | null;
  shownEnd: number | null;
  axis: { ticks: number[]; format: TickFormat };
  offsetMinutes: number;
  zone: string;
  unit: string;
  variable: string;
  drag: Drag | null;
  setDrag: (drag: Drag | null) => void;
  zoomTo: (a: number, b: number) => void;
}

export default function InteractiveChart({ rows, shownStart, shownEnd, axis, offsetMinutes, zone, unit, variable, drag, setDrag, zoomTo }: InteractiveChartProps) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart
        data={rows}
        margin={{ top: 12, right: 16, bottom: 28, left: 8 }}
        onMouseDown={(s) => s.activeLabel !== undefined && setDrag({ from: Number(s.activeLabel), to: Number(s.activeLabel) })}
        onMouseMove={(s) => drag && s.activeLabel !== undefined && setDrag({ from: drag.from, to: Number(s.activeLabel) })}
        onMouseUp={() => {
          if (drag && Math.abs(drag.to - drag.from) > 0) zoomTo(drag.from, drag.to);
          setDrag(null);
        }}
        onMouseLeave={() => setDrag(null)}
        style={{ userSelect: "none", cursor: "crosshair" }}
        role="img"
        aria-label={`Chart of ${variable}${unit ? ` in ${unit}` : ""} from ${shownStart !== null ? formatDateTime(shownStart, offsetMinutes) : ""} to ${shownEnd !== null ? formatDateTime(shownEnd, offsetMinutes) : ""} (${zone})`}
      >
        <CartesianGrid stroke="#dfe5ea" strokeDasharray="3 3" />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={[shownStart ?? "dataMin", shownEnd ?? "dataMax"]}
          allowDataOverflow
          ticks={axis.ticks}
          tickFormatter={(t: number) => formatTick(t, offsetMinutes, axis.format)}
          tick={{ fill: "#3d4b57", fontSize: 12 }}
          label={{ value: `Time (${zone})`, position: "insideBottom", offset: -16, fill: "#3d4b57", fontSize: 13 }}
        />
        <YAxis
          domain={["auto", "auto"]}
          tick={{ fill: "#3d4b57", fontSize: 12 }}
          width={64}
          label={{ value: unit ? `${variable} (${unit})` : variable, angle: -90, position: "insideLeft", offset: 12, fill: "#3d4b57", fontSize: 13, style: { textAnchor: "middle" } }}
        />
        <Tooltip content={(p) => <ChartTooltip active={p.active} payload={p.payload as unknown as { payload: Row }[]} offsetMinutes={offsetMinutes} unit={unit} zone={zone} />} />
        <Area type="linear" dataKey="range" name="Min–max" stroke="none" fill="#7fb7dd" fillOpacity={0.45} isAnimationActive={false} connectNulls={false} activeDot={false} />
        <Line type="linear" dataKey="mean" name="Mean" stroke="#0b4f85" strokeWidth={1.8} dot={false} isAnimationActive={false} connectNulls={false} />
        {drag && drag.from !== drag.to && <ReferenceArea x1={Math.min(drag.from, drag.to)} x2={Math.max(drag.from, drag.to)} fill="#0b4f85" fillOpacity={0.12} />}
      </ComposedChart>
    </ResponsiveContainer>
  );
}

function ChartTooltip({ active, payload, offsetMinutes, unit, zone }: { active?: boolean; payload?: { payload: Row }[]; offsetMinutes: number; unit: string; zone: string }) {
  if (!active || !payload?.length) return null;
  const row = payload[0].payload;
  const u = unit ? ` ${unit}` : "";
  return (
    <div className="chart-tooltip">
      <div className="muted">{formatDateTime(row.t, offsetMinutes)} ({zone})</div>
      {row.mean === null && row.range === null ? (
        <div>No data</div>
      ) : (
        <>
          <div><strong>Mean {row.text.mean ?? "—"}{u}</strong></div>
          {row.range && <div>Min {row.text.min}{u} · Max {row.text.max}{u}</div>}
        </>
      )}
    </div>
  );
}

