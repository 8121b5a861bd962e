"use client";

import "leaflet/dist/leaflet.css";
import dynamic from "next/dynamic";
import { useTranslations } from "next-intl";
import { useEffect, useMemo, useState } from "react";
import type { StationFeature, StationFeatureCollection } from "@/components/map/types";
import { normalizeSearch } from "@/lib/formats/search-normalize";

const StationPickerMap = dynamic(() => import("@/components/manage/synoptic/StationPickerMap"), {
  ssr: false,
  loading: () => <div className="leaflet-map map-placeholder" aria-hidden="true" />,
});

export interface StationPickerProps {
  picked: number[];
  /** The station being added, while its groups are read. */
  adding: number | null;
  onPick: (id: number) => void;
  tileUrl: string;
  tileAttribution: string;
  defaultBbox: [number, number, number, number];
}

const SHOWN = 40;

/**
 * Every station on a map (click one to add it) and in a list filtered by name or code (for the
 * keyboard, and for stations too close together to click), from stations/geojson/.
 */
export default function StationPicker({ picked, adding, onPick, tileUrl, tileAttribution, defaultBbox }: StationPickerProps) {
  const t = useTranslations("synopticForm");
  const [features, setFeatures] = useState<StationFeature[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [filter, setFilter] = useState("");

  useEffect(() => {
    const controller = new AbortController();
    fetch("/api/stations/geojson/", { signal: controller.signal, credentials: "same-origin" })
      .then(async (r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        setFeatures(((await r.json()) as StationFeatureCollection).features);
      })
      .catch((e: Error) => {
        if (e.name !== "AbortError") setProblem(e.message);
      });
    return () => controller.abort();
  }, []);

  const matches = useMemo(() => {
    if (!features) return [];
    const words = normalizeSearch(filter).split(/\s+/).filter(Boolean);
    return features
      .filter((f) => words.every((w) => normalizeSearch(`${f.properties.name} ${f.properties.code}`).includes(w)))
      .slice(0, SHOWN);
  }, [features, filter]);

  return (
    <div className="synoptic-picker">
      <div className="map-frame" role="region" aria-label={t("mapLabel")} data-points={features?.length}>
        <StationPickerMap features={features ?? []} picked={picked} onPick={onPick} tileUrl={tileUrl} tileAttribution={tileAttribution} defaultBbox={defaultBbox} />
      </div>
      <div>
        <label htmlFor="station-filter">{t("find")}</label>
        <input id="station-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder={t("findPlaceholder")} autoComplete="off" />
        {problem && <p className="error-text" role="alert">{t("loadFailed", { reason: problem })}</p>}
        {!features && !problem && <p className="muted small">{t("loading")}</p>}
        <ul className="synoptic-picker-list" aria-label={t("stations")}>
          {matches.map((f) => {
            const name = f.properties.name || t("stationFallback", { id: String(f.id) });
            const isPicked = picked.includes(f.id);
            return (
              <li key={f.id}>
                <span>{name}{f.properties.code && <span className="muted small"> {f.properties.code}</span>}</span>
                <button type="button" className="secondary" disabled={isPicked || adding !== null} onClick={() => onPick(f.id)} aria-label={t("addLabel", { name })}>
                  {isPicked ? t("added") : adding === f.id ? t("adding") : t("add")}
                </button>
              </li>
            );
          })}
        </ul>
        {features && matches.length === SHOWN && <p className="muted small">{t("firstMatches", { count: SHOWN })}</p>}
      </div>
    </div>
  );
}
