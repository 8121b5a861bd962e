"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type FormEvent } from "react";
import {
  Area, CartesianGrid, ComposedChart, Line, ReferenceArea, ResponsiveContainer, Tooltip, XAxis, YAxis,
} from "recharts";
import ComparePicker, { unitAxes, useOverlays, type Compared } from "@/components/chart/Compare";
import { RangeFields, useDragRange } from "@/components/chart/drag-range";
import { drawnRows } from "@/components/chart/gaps";
import StaticChart from "@/components/chart/StaticChart";
import { formatTick, timeTicks } from "@/components/chart/ticks";
import { decimalIn } from "@/lib/i18n/format";
import { chartApiUrl } from "@/lib/site/paths";
import { formatDateTime, formatLocalInput, isoWithOffset, offsetLabel, parseInstant } from "@/lib/site/time";

/**
 * The chart viewer of a group page (api.md §16): the mean as a line and the min–max range as a
 * band, from the series' chart/ endpoint (§8.5). The series and the range live in the page's
 * query string (`series`, `start`, `end`), so a copied URL shows the same chart; zooming by
 * dragging, with the buttons or the date fields fetches the chart again for the new range.
 */
export interface ChartSeries {
  id: number;
  label: string;
  canRead: boolean;
  first: number | null;
  last: number | null;
  /** The time step in seconds (gaps.ts stepSeconds); null when irregular. */
  step: number | null;
}

export interface SeriesChartProps {
  stationId: number;
  groupId: number;
  series: ChartSeries[];
  defaultSeriesId: number | null;
  /** The first chart as the server read it, with the chart/ URL it answers. */
  initialChart: { url: string; points: Point[] } | null;
  offsetMinutes: number;
  unit: string;
  variable: string;
  loginHref: string | null;
}

export interface Point {
  timestamp: number;
  min: string | null;
  max: string | null;
  mean: string | null;
}

interface Row {
  t: number;
  mean: number | null;
  range: [number, number] | null;
  /** The values as the endpoint wrote them (with the group's precision). */
  text: { mean: string | null; min: string | null; max: string | null };
  /** What is drawn (gaps.ts): the line and band across empty intervals that are not gaps in the data. */
  line: number | null;
  band: [number, number] | null;
  alone: boolean;
}

type Load =
  | { state: "idle" }
  | { state: "loading" }
  | { state: "ready"; rows: Row[] }
  | { state: "denied" }
  | { state: "error"; message: string };

const MIN_SPAN = 1800;

const subscribeNothing = () => () => {};

const toNumber = (v: string | null) => (v === null ? null : Number(v));

function toRows(points: Point[], step: number | null): Row[] {
  const rows = points.map((p) => {
    const min = toNumber(p.min);
    const max = toNumber(p.max);
    return { t: p.timestamp, mean: toNumber(p.mean), range: min !== null && max !== null ? [min, max] as [number, number] : null, text: { mean: p.mean, min: p.min, max: p.max } };
  });
  const drawn = drawnRows(rows, step);
  return rows.map((r, i) => ({ ...r, ...drawn[i] }));
}

/** recharts' dot for the mean line: only for a point that stands alone (nothing drawn either side). */
function AloneDot(props: { cx?: number; cy?: number; index?: number; payload?: Row }) {
  const { cx, cy, payload, index } = props;
  if (!payload?.alone || cx === undefined || cy === undefined) return <g key={`dot${index}`} />;
  return <circle key={`dot${index}`} cx={cx} cy={cy} r={2.5} fill="#0b4f85" />;
}

export default function SeriesChart({ stationId, groupId, series, defaultSeriesId, initialChart, offsetMinutes, unit, variable, loginHref }: SeriesChartProps) {
  const params = useSearchParams();
  const requested = Number(params.get("series"));
  const current = series.find((s) => s.id === requested) ?? series.find((s) => s.id === defaultSeriesId) ?? series[0] ?? null;
  const startParam = params.get("start") ?? "";
  const endParam = params.get("end") ?? "";
  const start = startParam ? parseInstant(startParam, offsetMinutes) : null;
  const end = endParam ? parseInstant(endParam, offsetMinutes) : null;
  const zone = offsetLabel(offsetMinutes);
  const t = useTranslations("chart");
  const locale = useLocale();

  // The answer of the last chart request, with the request it answers: while the current
  // request has no answer yet, the chart is loading.
  const step = current?.step ?? null;
  const [answer, setAnswer] = useState<{ url: string; load: Load }>(() =>
    initialChart ? { url: initialChart.url, load: { state: "ready", rows: toRows(initialChart.points, step) } } : { url: "", load: { state: "idle" } });
  // The server's chart stands for the first request only; every later range is fetched anew.
  const served = useRef(initialChart?.url ?? null);

  /** Writes the chart state into the page's URL (a new history entry, so Back undoes a zoom). */
  const navigate = useCallback((next: { series?: number; start?: number | null; end?: number | null }) => {
    const url = new URL(window.location.href);
    const set = (key: string, value: string | null) => (value === null ? url.searchParams.delete(key) : url.searchParams.set(key, value));
    if (next.series !== undefined) set("series", String(next.series));
    else if (current) set("series", String(current.id));
    if (next.start !== undefined) set("start", next.start === null ? null : isoWithOffset(next.start, offsetMinutes));
    if (next.end !== undefined) set("end", next.end === null ? null : isoWithOffset(next.end, offsetMinutes));
    window.history.pushState(null, "", url.pathname + url.search + url.hash);
  }, [current, offsetMinutes]);

  const seriesId = current?.id ?? null;
  const canRead = current?.canRead ?? false;
  const hasRecords = current?.first !== null && current?.first !== undefined;

  const chartUrl = seriesId !== null && canRead && hasRecords ? chartApiUrl(stationId, groupId, seriesId, start, end, offsetMinutes) : null;
  const load: Load = chartUrl === null ? { state: "idle" } : answer.url === chartUrl ? answer.load : { state: "loading" };

  useEffect(() => {
    if (chartUrl === null) return;
    const url = chartUrl;
    const setLoad = (value: Load) => setAnswer({ url, load: value });
    if (url === served.current) {
      served.current = null;
      return;
    }
    const controller = new AbortController();
    fetch(url, { signal: controller.signal, credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(async (response) => {
        if (response.status === 401 || response.status === 403) return setLoad({ state: "denied" });
        if (!response.ok) {
          let detail = "";
          try {
            detail = Object.values((await response.json()) as Record<string, unknown>).flat().join(" ");
          } catch {
            /* not JSON */
          }
          return setLoad({ state: "error", message: detail ? t("loadFailedDetail", { detail }) : t("loadFailedStatus", { status: response.status }) });
        }
        const rows = toRows((await response.json()) as Point[], step);
        setLoad({ state: "ready", rows });
      })
      .catch((e: Error) => {
        if (e.name !== "AbortError") setLoad({ state: "error", message: t("loadFailedNetwork") });
      });
    return () => controller.abort();
  }, [chartUrl, step, t]);

  const shownStart = start ?? current?.first ?? null;
  const shownEnd = end ?? current?.last ?? null;
  // "Compare with…" (corrections.md §3): other series overlaid, each unit on its own axis.
  const [compared, setCompared] = useState<Compared[]>([]);
  const overlays = useOverlays(compared, shownStart, shownEnd, offsetMinutes);
  const axes = unitAxes(unit, overlays);

  const zoomTo = (a: number, b: number) => {
    let from = Math.min(a, b);
    let to = Math.max(a, b);
    if (to - from < MIN_SPAN) {
      const mid = (from + to) / 2;
      from = Math.floor(mid - MIN_SPAN / 2);
      to = Math.ceil(mid + MIN_SPAN / 2);
    }
    if (current?.first !== null && current?.last !== null && current && from <= current.first! && to >= current.last!) {
      navigate({ start: null, end: null });
    } else {
      navigate({ start: Math.round(from), end: Math.round(to) });
    }
  };
  const { drag, handlers: dragHandlers } = useDragRange(zoomTo);

  const span = shownStart !== null && shownEnd !== null ? Math.max(shownEnd - shownStart, 1) : 0;
  const zoomBy = (factor: number) => {
    if (shownStart === null || shownEnd === null) return;
    const mid = (shownStart + shownEnd) / 2;
    zoomTo(mid - (span * factor) / 2, mid + (span * factor) / 2);
  };
  const pan = (fraction: number) => {
    if (shownStart === null || shownEnd === null) return;
    navigate({ start: Math.round(shownStart + span * fraction), end: Math.round(shownEnd + span * fraction) });
  };

  const [fromText, setFromText] = useState("");
  const [toText, setToText] = useState("");
  const [formError, setFormError] = useState("");
  const rangeKey = `${shownStart}-${shownEnd}`;
  const [seenKey, setSeenKey] = useState("");
  if (seenKey !== rangeKey) {
    setSeenKey(rangeKey);
    setFromText(shownStart !== null ? formatLocalInput(shownStart, offsetMinutes) : "");
    setToText(shownEnd !== null ? formatLocalInput(shownEnd, offsetMinutes) : "");
  }
  const applyRange = (e: FormEvent) => {
    e.preventDefault();
    const a = parseInstant(fromText, offsetMinutes);
    const b = parseInstant(toText, offsetMinutes);
    if (a === null || b === null || a >= b) {
      setFormError(t("startBeforeEnd"));
      return;
    }
    setFormError("");
    navigate({ start: a, end: b });
  };

  // False in the server's HTML and while hydrating (the static SVG chart), true after.
  const hydrated = useSyncExternalStore(subscribeNothing, () => true, () => false);
  const axis = useMemo(
    () => (shownStart !== null && shownEnd !== null ? timeTicks(shownStart, shownEnd, offsetMinutes) : { ticks: [], format: "day" as const }),
    [shownStart, shownEnd, offsetMinutes],
  );

  if (!current) return <p className="message">{t("noSeries")}</p>;
  const decimals = (value: number | string) => decimalIn(locale, value);
  const chartLabel = (from: string, to: string) => (unit ? t("labelUnit", { variable, unit, from, to, zone }) : t("label", { variable, from, to, zone }));

  const selector = (
    <div className="field inline">
      <label htmlFor="chart-series">{t("timeSeries")}</label>
      <select id="chart-series" value={current.id} onChange={(e) => navigate({ series: Number(e.target.value) })}>
        {series.map((s) => (
          <option key={s.id} value={s.id}>
            {s.label}
            {s.canRead ? "" : t("notPublicOption")}
          </option>
        ))}
      </select>
    </div>
  );

  let body;
  if (!current.canRead || load.state === "denied") {
    body = (
      <div className="chart-message" role="status">
        <p><strong>{t("notPublic")}</strong></p>
        <p>
          {t("onlyAllowed")}
          {loginHref ? <> {t.rich("logInIfAccount", { link: (chunks) => <Link href={loginHref}>{chunks}</Link> })}</> : null}
        </p>
      </div>
    );
  } else if (!hasRecords) {
    body = (
      <div className="chart-message" role="status">
        <p><strong>{t("noRecordsYet")}</strong></p>
      </div>
    );
  } else if (load.state === "error") {
    body = (
      <div className="chart-message error" role="alert">
        <p>{load.message}</p>
      </div>
    );
  } else {
    const rows = load.state === "ready" ? load.rows : [];
    const empty = load.state === "ready" && rows.every((r) => r.mean === null && r.range === null);
    body = (
      <div className="chart-box" data-state={load.state} aria-busy={load.state === "loading"}>
        {empty ? (
          <div className="chart-message" role="status">
            <p><strong>{t("noRecordsInRange")}</strong></p>
            <p><button type="button" className="button secondary" onClick={() => navigate({ start: null, end: null })}>{t("showWhole")}</button></p>
          </div>
        ) : !hydrated ? (
          shownStart !== null && shownEnd !== null && (
            <StaticChart
              rows={rows} start={shownStart} end={shownEnd} axis={axis} offsetMinutes={offsetMinutes}
              yLabel={unit ? `${variable} (${unit})` : variable}
              label={chartLabel(formatDateTime(shownStart, offsetMinutes), formatDateTime(shownEnd, offsetMinutes))}
              timeLabel={t("timeAxis", { zone })}
              formatValue={decimals}
            />
          )
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart
              data={rows}
              margin={{ top: 12, right: 16, bottom: 28, left: 8 }}
              {...dragHandlers}
              style={{ userSelect: "none", cursor: "crosshair" }}
              role="img"
              aria-label={chartLabel(shownStart !== null ? formatDateTime(shownStart, offsetMinutes) : "", shownEnd !== null ? formatDateTime(shownEnd, offsetMinutes) : "")}
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
                label={{ value: t("timeAxis", { zone }), position: "insideBottom", offset: -16, fill: "#3d4b57", fontSize: 13 }}
              />
              <YAxis
                yAxisId="left"
                domain={["auto", "auto"]}
                tick={{ fill: "#3d4b57", fontSize: 12 }}
                tickFormatter={(v: number) => decimals(v)}
                width={64}
                label={{ value: unit ? `${variable} (${unit})` : variable, angle: -90, position: "insideLeft", offset: 12, fill: "#3d4b57", fontSize: 13, style: { textAnchor: "middle" } }}
              />
              <Tooltip content={(p) => <ChartTooltip active={p.active} payload={p.payload as unknown as { payload: Row }[]} offsetMinutes={offsetMinutes} unit={unit} zone={zone} decimals={decimals} />} />
              {[...axes.entries()].slice(1).map(([u, axisId]) => (
                <YAxis key={axisId} yAxisId={axisId} orientation="right" domain={["auto", "auto"]} width={56} tick={{ fill: "#3d4b57", fontSize: 12 }} tickFormatter={(v: number) => decimals(v)}
                  label={{ value: u, angle: -90, position: "insideRight", offset: 12, fill: "#3d4b57", fontSize: 13, style: { textAnchor: "middle" } }} />
              ))}
              <Area yAxisId="left" type="linear" dataKey="band" name={t("minMax")} stroke="none" fill="#7fb7dd" fillOpacity={0.45} isAnimationActive={false} connectNulls={false} activeDot={false} />
              <Line yAxisId="left" type="linear" dataKey="line" name={t("mean")} stroke="#0b4f85" strokeWidth={1.8} dot={AloneDot} isAnimationActive={false} connectNulls={false} />
              {overlays.map((o) => (
                <Line key={o.seriesId} yAxisId={axes.get(o.unit)} data={o.points} dataKey="line" name={o.label} stroke={o.colour} strokeWidth={1.2} dot={false} isAnimationActive={false} connectNulls={false} />
              ))}
              {drag && drag.from !== drag.to && <ReferenceArea yAxisId="left" x1={Math.min(drag.from, drag.to)} x2={Math.max(drag.from, drag.to)} fill="#0b4f85" fillOpacity={0.12} />}
            </ComposedChart>
          </ResponsiveContainer>
        )}
        {load.state === "loading" && <div className="chart-loading">{t("loading")}</div>}
      </div>
    );
  }

  const chartable = current.canRead && hasRecords && load.state !== "denied";
  return (
    <div className="chart-viewer">
      <div className="chart-controls">
        {selector}
        {chartable && (
          <p className="chart-range" aria-live="polite">
            <span className="visually-hidden">{t("showing")}</span>
            {shownStart !== null && shownEnd !== null ? (
              <>
                <time dateTime={new Date(shownStart * 1000).toISOString()}>{formatDateTime(shownStart, offsetMinutes)}</time>
                {" – "}
                <time dateTime={new Date(shownEnd * 1000).toISOString()}>{formatDateTime(shownEnd, offsetMinutes)}</time>
                <span className="muted"> ({zone})</span>
              </>
            ) : null}
          </p>
        )}
      </div>
      {body}
      {chartable && (
        <>
          <div className="chart-legend" aria-hidden="true">
            <span className="legend-mean">{t("mean")}</span>
            <span className="legend-band">{t("minMaxRange")}</span>
            <span className="muted">{t("dragToZoom")}</span>
          </div>
          <div className="chart-toolbar" role="group" aria-label={t("rangeGroup")}>
            <button type="button" className="button secondary" onClick={() => pan(-0.5)}>{t("earlier")}</button>
            <button type="button" className="button secondary" onClick={() => zoomBy(0.5)}>{t("zoomIn")}</button>
            <button type="button" className="button secondary" onClick={() => zoomBy(2)}>{t("zoomOut")}</button>
            <button type="button" className="button secondary" onClick={() => pan(0.5)}>{t("later")}</button>
            <button type="button" className="button secondary" onClick={() => navigate({ start: null, end: null })} disabled={start === null && end === null}>
              {t("wholeSeries")}
            </button>
          </div>
          <ComparePicker compared={compared} onChange={setCompared} excludeSeriesId={current.id} />
          <form className="chart-range-form" onSubmit={applyRange}>
            <RangeFields idPrefix="chart" zone={zone} from={fromText} to={toText} onFrom={setFromText} onTo={setToText} />
            <button type="submit" className="button">{t("showRange")}</button>
            {formError && <p className="field-error" role="alert">{formError}</p>}
          </form>
        </>
      )}
    </div>
  );
}

function ChartTooltip({ active, payload, offsetMinutes, unit, zone, decimals }: {
  active?: boolean; payload?: { payload: Row }[]; offsetMinutes: number; unit: string; zone: string; decimals: (value: string) => string;
}) {
  const t = useTranslations("chart");
  if (!active || !payload?.length) return null;
  const row = payload[0].payload;
  const u = unit ? ` ${unit}` : "";
  return (
    <div className="chart-tooltip">
      <div className="muted">{formatDateTime(row.t, offsetMinutes)} ({zone})</div>
      {row.mean === null && row.range === null ? (
        <div>{t("noData")}</div>
      ) : (
        <>
          <div><strong>{t("meanValue", { value: row.text.mean === null ? "—" : decimals(row.text.mean), unit: u })}</strong></div>
          {row.range && <div>{t("minMaxValues", { min: decimals(row.text.min ?? ""), max: decimals(row.text.max ?? ""), unit: u })}</div>}
        </>
      )}
    </div>
  );
}
