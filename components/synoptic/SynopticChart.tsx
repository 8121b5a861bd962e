"use client";

import "./synoptic.css";
import { useLocale, useTranslations } from "next-intl";
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick, roundedAxis, timeTicks } from "@/components/chart/ticks";
import { useHydrated } from "@/components/site/useHydrated";
import { CHART_SPAN_SECONDS, chartDomain } from "@/lib/synoptic/client";
import { decimalIn } from "@/lib/i18n/format";
import { formatDateTime } from "@/lib/site/time";

export interface SynopticChartProps {
  /** [UTC seconds, value] of the 24 hours before `end`. */
  points: [number, number | null][];
  end: number;
  offsetMinutes: number;
  precision: number;
  unit: string;
  title: string;
  lowLimit: number | null;
  highLimit: number | null;
  defaultMin: number | null;
  defaultMax: number | null;
}

const LOW = "#0b4fa8";
const HIGH = "#b3261e";

/**
 * A variable over the 24 hours before the station's last common date (synoptic.md §2): the
 * values as a line, the low and high limits as dashed lines, the y axis covering the default
 * chart range, the limits and the values.
 */
export default function SynopticChart({ points, end, offsetMinutes, precision, unit, title, lowLimit, highLimit, defaultMin, defaultMax }: SynopticChartProps) {
  const live = useHydrated();
  const t = useTranslations("synoptic");
  const locale = useLocale();
  const decimals = (v: number | string) => decimalIn(locale, v);
  const start = end - CHART_SPAN_SECONDS;
  const { ticks, format } = timeTicks(start, end, offsetMinutes, 6);
  const yTicks = roundedAxis(...chartDomain(points.map((p) => p[1]), [lowLimit, highLimit], defaultMin, defaultMax));
  const [min, max] = [yTicks[0], yTicks[yTicks.length - 1]];
  const rows = points.map(([t, v]) => ({ t, v }));
  const text = (v: number) => decimals(precision > 0 ? v.toFixed(precision) : String(Math.round(v)));
  const low = lowLimit === null ? "" : decimals(lowLimit);
  const high = highLimit === null ? "" : decimals(highLimit);
  return (
    <>
      <div className="synoptic-chart" data-points={points.length} role="img" aria-label={`${t("chartLabel", { title })}${lowLimit !== null ? t("chartLow", { limit: low }) : ""}${highLimit !== null ? t("chartHigh", { limit: high }) : ""}`}>
        {live && (
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={rows} margin={{ top: 8, right: 12, bottom: 4, left: 0 }}>
              <CartesianGrid stroke="#e6ebef" />
              <XAxis dataKey="t" type="number" domain={[start, end]} ticks={ticks} tickFormatter={(t: number) => formatTick(t, offsetMinutes, format)} fontSize={12} />
              <YAxis domain={[min, max]} ticks={yTicks} tickFormatter={(v: number) => decimals(v)} width={52} fontSize={12} allowDataOverflow />
              <Tooltip
                labelFormatter={(t) => formatDateTime(Number(t), offsetMinutes)}
                formatter={(v) => [`${text(Number(v))}${unit ? ` ${unit}` : ""}`, title]}
              />
              {lowLimit !== null && <ReferenceLine y={lowLimit} stroke={LOW} strokeDasharray="6 4" strokeWidth={2} label={{ value: t("low", { limit: low }), position: "insideBottomLeft", fill: LOW, fontSize: 11 }} />}
              {highLimit !== null && <ReferenceLine y={highLimit} stroke={HIGH} strokeDasharray="6 4" strokeWidth={2} label={{ value: t("high", { limit: high }), position: "insideTopLeft", fill: HIGH, fontSize: 11 }} />}
              <Line dataKey="v" type="linear" stroke="#0b3954" strokeWidth={2} dot={points.length < 3} isAnimationActive={false} connectNulls={false} />
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
      {(lowLimit !== null || highLimit !== null) && (
        <p className="synoptic-chart-legend">
          {lowLimit !== null && <span className="limit-low">{t("lowLimit", { limit: low })}{unit && ` ${unit}`}</span>}
          {highLimit !== null && <span className="limit-high">{t("highLimit", { limit: high })}{unit && ` ${unit}`}</span>}
        </p>
      )}
    </>
  );
}
