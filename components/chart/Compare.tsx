"use client";

import { useTranslations } from "next-intl";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { drawnRows } from "@/components/chart/gaps";
import { type ComparedSeries, MAX_COMPARED, stepSeconds } from "@/lib/domain/compare";
import { timeStepToMinutesMonths } from "@/lib/formats/time-step";
import { chartApiUrl } from "@/lib/site/paths";

/**
 * "Compare with…" (corrections.md §3): up to five other series, of any station the user may read,
 * overlaid on a chart's time axis. The user finds a station by search, picks one of its series;
 * the chart/ means of each picked series over the shown range are handed to the chart, which
 * gives each unit its own value axis.
 */
export { MAX_COMPARED };
export const OVERLAY_COLOURS = ["#c2410c", "#15803d", "#7c3aed", "#b91c1c", "#0e7490"];

export type Compared = ComparedSeries;

export interface Overlay extends Compared {
  colour: string;
  /**
   * The chart/ means (v), and what to draw (line): zoomed in, most intervals of a series are
   * empty without a record missing, and the line goes on across them, as the chart's own
   * (components/chart/gaps.ts).
   */
  points: { t: number; v: number | null; line: number | null }[];
}

interface StationHit {
  id: number;
  name: string;
}

interface SeriesHit {
  id: number;
  name: string;
  timeseries_group: number;
  unit_of_measurement: number;
  time_step: string;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as T;
}

const overlayKey = (c: Compared, start: number | null, end: number | null) => `${c.stationId}/${c.groupId}/${c.seriesId}/${start}/${end}`;

/** The chart/ means of the compared series over [start, end], fetched once for each series and range. */
export function useOverlays(compared: Compared[], start: number | null, end: number | null, offsetMinutes: number): Overlay[] {
  const [loaded, setLoaded] = useState<Record<string, Overlay["points"]>>({});
  const requested = useRef(new Set<string>());
  useEffect(() => {
    for (const c of compared) {
      const k = overlayKey(c, start, end);
      if (requested.current.has(k)) continue;
      requested.current.add(k);
      getJson<{ timestamp: number; mean: string | null }[]>(chartApiUrl(c.stationId, c.groupId, c.seriesId, start, end, offsetMinutes))
        .then((points) => {
          const rows = points.map((p) => ({ t: p.timestamp, mean: p.mean === null ? null : Number(p.mean), range: null }));
          const drawn = drawnRows(rows, c.step);
          setLoaded((l) => ({ ...l, [k]: rows.map((r, i) => ({ t: r.t, v: r.mean, line: drawn[i].line })) }));
        })
        .catch(() => setLoaded((l) => ({ ...l, [k]: [] })));
    }
  }, [compared, start, end, offsetMinutes]);
  // The same array until something changes: charts redraw only then.
  return useMemo(
    () => compared.map((c, i) => ({ ...c, colour: OVERLAY_COLOURS[i % OVERLAY_COLOURS.length], points: loaded[overlayKey(c, start, end)] ?? [] })),
    [compared, loaded, start, end],
  );
}

/** The value axes of a chart: its own unit first ("left"), then one per other unit of the overlays. */
export function unitAxes(ownUnit: string, overlays: Overlay[]): Map<string, string> {
  const axes = new Map<string, string>([[ownUnit, "left"]]);
  for (const o of overlays) if (!axes.has(o.unit)) axes.set(o.unit, `unit-${axes.size}`);
  return axes;
}

export default function ComparePicker({ compared, onChange, excludeSeriesId }: { compared: Compared[]; onChange: (next: Compared[]) => void; excludeSeriesId?: number }) {
  const id = useId();
  const t = useTranslations("compare");
  const tc = useTranslations("common");
  const tm = useTranslations("misc");
  const [query, setQuery] = useState("");
  const [stations, setStations] = useState<StationHit[] | null>(null);
  const [station, setStation] = useState<StationHit | null>(null);
  const [series, setSeries] = useState<SeriesHit[] | null>(null);
  const [chosen, setChosen] = useState("");
  const [problem, setProblem] = useState("");

  const search = async () => {
    setProblem("");
    try {
      const page = await getJson<{ results: StationHit[] }>(`/api/stations/?q=${encodeURIComponent(query)}&page_size=10`);
      setStations(page.results);
    } catch {
      setProblem(t("searchFailed"));
    }
  };
  const pickStation = async (s: StationHit) => {
    setStation(s);
    setSeries(null);
    setChosen("");
    try {
      const list = await getJson<SeriesHit[] | { results: SeriesHit[] }>(`/api/stations/${s.id}/timeseries/`);
      setSeries(Array.isArray(list) ? list : list.results);
    } catch {
      setProblem(t("seriesFailed"));
    }
  };
  const add = async () => {
    const hit = series?.find((t) => String(t.id) === chosen);
    if (!station || !hit) return;
    let unit = "";
    try {
      unit = (await getJson<{ symbol: string }>(`/api/units/${hit.unit_of_measurement}/`)).symbol;
    } catch {
      unit = `unit ${hit.unit_of_measurement}`;
    }
    onChange([...compared, {
      stationId: station.id, groupId: hit.timeseries_group, seriesId: hit.id, label: `${station.name} · ${hit.name || tm("seriesLower", { id: hit.id })}`, unit,
      step: stepSeconds(timeStepToMinutesMonths(hit.time_step)),
    }]);
    setChosen("");
  };

  const full = compared.length >= MAX_COMPARED;
  return (
    <details className="compare" open={compared.length > 0 || undefined}>
      <summary>{t("title")}</summary>
      {compared.length > 0 && (
        <ul className="compare-list">
          {compared.map((c, i) => (
            <li key={c.seriesId}>
              <span className="compare-swatch" style={{ background: OVERLAY_COLOURS[i % OVERLAY_COLOURS.length] }} aria-hidden="true" /> {c.label} ({c.unit || t("noUnit")}){" "}
              <button type="button" className="button secondary small" onClick={() => onChange(compared.filter((x) => x.seriesId !== c.seriesId))}>{t("remove")}</button>
            </li>
          ))}
        </ul>
      )}
      {full ? <p className="muted small">{t("atMost", { max: MAX_COMPARED })}</p> : (
        <div className="compare-pick">
          <form className="field inline" onSubmit={(e) => { e.preventDefault(); search(); }}>
            <label htmlFor={`${id}-q`}>{t("station")}</label>
            <input id={`${id}-q`} value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t("placeholder")} />
            <button type="submit" className="button secondary">{t("search")}</button>
          </form>
          {stations && (stations.length === 0 ? <p className="muted small">{t("noStation")}</p> : (
            <ul className="compare-stations">
              {stations.map((s) => (
                <li key={s.id}><button type="button" className={`button secondary small${station?.id === s.id ? " active" : ""}`} onClick={() => pickStation(s)}>{s.name || tc("station", { id: s.id })}</button></li>
              ))}
            </ul>
          ))}
          {station && series && (
            <div className="field inline">
              <label htmlFor={`${id}-series`}>{t("seriesOf", { station: station.name })}</label>
              <select id={`${id}-series`} value={chosen} onChange={(e) => setChosen(e.target.value)}>
                <option value="">—</option>
                {series.filter((t) => t.id !== excludeSeriesId && !compared.some((c) => c.seriesId === t.id)).map((t) => (
                  <option key={t.id} value={t.id}>{t.name || tm("series", { id: t.id })} ({t.time_step || tc("irregular")})</option>
                ))}
              </select>
              <button type="button" className="button" disabled={!chosen} onClick={add}>{t("add")}</button>
            </div>
          )}
        </div>
      )}
      {problem && <p className="field-error" role="alert">{problem}</p>}
    </details>
  );
}
