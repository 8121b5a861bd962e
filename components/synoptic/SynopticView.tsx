"use client";

import "leaflet/dist/leaflet.css";
import "./synoptic.css";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useMemo, useState } from "react";
import { formatDateTime } from "@/lib/site/time";
import { STATUS_KEYS, valueText, type LatestStation } from "@/components/synoptic/types";

const SynopticMapView = dynamic(() => import("@/components/synoptic/SynopticMapView"), {
  ssr: false,
  loading: () => <div className="leaflet-map map-placeholder" aria-hidden="true" />,
});

export interface SynopticViewProps {
  groupId: number;
  slug: string;
  initial: LatestStation[];
  /** The group's time zone as minutes east of UTC, and its label. */
  offsetMinutes: number;
  zoneLabel: string;
  /** Each time series group's precision, for the value texts. */
  precisions: Record<number, number>;
  tileUrl: string;
  tileAttribution: string;
  defaultBbox: [number, number, number, number];
  /** How often the values are read again (default a minute). */
  refreshMs?: number;
}

/** "2025-06-01 12:10" in the group's zone, from latest/'s UTC text; `none` without one. */
export function localDate(iso: string | null, offsetMinutes: number, none = "no data"): string {
  return iso ? formatDateTime(Date.parse(iso) / 1000, offsetMinutes) : none;
}

/** The titles of the variables, in the order they first appear: the table's columns. */
function columnsOf(stations: LatestStation[]): string[] {
  const titles: string[] = [];
  for (const s of stations) for (const v of s.values) if (!titles.includes(v.title)) titles.push(v.title);
  return titles;
}

/**
 * `{site}/synoptic/{slug}/` (synoptic.md §2): a map with one marker per station (its latest
 * values, coloured by freshness) and a table of stations × variables (values coloured by
 * status), read again from latest/ every minute without reloading the page.
 */
export default function SynopticView({ groupId, slug, initial, offsetMinutes, zoneLabel, precisions, tileUrl, tileAttribution, defaultBbox, refreshMs = 60_000 }: SynopticViewProps) {
  const [stations, setStations] = useState(initial);
  const [updated, setUpdated] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const t = useTranslations("synoptic");
  const locale = useLocale();
  const words = { locale, hidden: t("hidden") };
  const mapWords = useMemo(() => ({
    locale, hidden: t("hidden"), noData: t("noData"),
    status: { ok: t("statusOk"), low: t("statusLow"), high: t("statusHigh"), error: t("statusError"), hidden: t("statusHidden") },
  }), [locale, t]);

  useEffect(() => {
    let stop = false;
    const refresh = async () => {
      try {
        const response = await fetch(`/api/synopticgroups/${groupId}/latest/`, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const data = (await response.json()) as LatestStation[];
        if (stop) return;
        setStations(data);
        setUpdated(Date.now());
        setProblem(null);
      } catch (e) {
        if (!stop) setProblem(t("readFailed", { problem: (e as Error).message }));
      }
    };
    const timer = setInterval(refresh, refreshMs);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [groupId, refreshMs, t]);

  const columns = useMemo(() => columnsOf(stations), [stations]);
  const stationHref = (id: number) => `/synoptic/${encodeURIComponent(slug)}/stations/${id}/`;

  return (
    <div className="synoptic" data-updated={updated ?? undefined}>
      <div className="map-frame synoptic-map" role="region" aria-label={t("mapLabel")}>
        <SynopticMapView stations={stations} offsetMinutes={offsetMinutes} precisions={precisions} stationHref={stationHref} tileUrl={tileUrl}
          tileAttribution={tileAttribution} defaultBbox={defaultBbox} words={mapWords} />
      </div>
      <p className="synoptic-status muted small" role="status">
        {problem ?? (updated ? t("timesInRead", { zone: zoneLabel, time: new Date(updated).toLocaleTimeString(locale === "en" ? "en-GB" : locale) }) : t("timesIn", { zone: zoneLabel }))}
      </p>
      <section className="card" aria-labelledby="synoptic-table-heading">
        <h2 id="synoptic-table-heading">{t("latestValues")}</h2>
        {stations.length === 0 ? <p className="muted">{t("noStations")}</p> : (
          <div className="table-wrap">
            <table className="data-table synoptic-table">
              <thead>
                <tr>
                  <th scope="col">{t("station")}</th>
                  <th scope="col">{t("lastCommonDate")}</th>
                  {columns.map((c) => <th key={c} scope="col">{c}</th>)}
                </tr>
              </thead>
              <tbody>
                {stations.map((s) => (
                  <tr key={s.station} data-station={s.station} data-freshness={s.freshness}>
                    <th scope="row"><Link href={stationHref(s.station)}>{s.name}</Link></th>
                    <td data-label={t("lastCommonDate")} className={`freshness-${s.freshness}`}>
                      {localDate(s.last_common_date, offsetMinutes, t("noData"))}
                      <span className="freshness-word">{s.freshness === "old" ? t("old") : ""}</span>
                    </td>
                    {columns.map((c) => {
                      const v = s.values.find((x) => x.title === c);
                      if (!v) return <td key={c} data-label={c} className="muted">—</td>;
                      return (
                        <td key={c} data-label={c} className={`value status-${v.status}`} data-status={v.status} title={t(STATUS_KEYS[v.status])}>
                          {valueText(v, precisions[v.timeseries_group], words)}
                          {v.status !== "ok" && v.status !== "hidden" && <span className="visually-hidden"> ({t(STATUS_KEYS[v.status])})</span>}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p className="synoptic-legend small">
          <span className="status-low">{t("statusLow")}</span>
          <span className="status-high">{t("statusHigh")}</span>
          <span className="status-error">{t("statusError")}</span>
          <span className="freshness-old">{t("legendOld")}</span>
        </p>
      </section>
    </div>
  );
}
