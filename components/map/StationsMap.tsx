"use client";

import "leaflet/dist/leaflet.css";
import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useCallback, useState } from "react";
import type L from "leaflet";
import type { MapStatus } from "@/components/map/StationsMapView";
import type { Bbox } from "@/components/map/types";

const StationsMapView = dynamic(() => import("@/components/map/StationsMapView"), {
  ssr: false,
  loading: () => <div className="leaflet-map map-placeholder" aria-hidden="true" />,
});

export interface StationsMapProps {
  q: string;
  bbox: string;
  initialBbox: Bbox;
  tileUrl: string;
  tileAttribution: string;
}

const round = (x: number) => Number(x.toFixed(5));

/** The map of the home page with its "Search in this area" button and a status line. */
export default function StationsMap({ q, bbox, initialBbox, tileUrl, tileAttribution }: StationsMapProps) {
  const router = useRouter();
  const t = useTranslations("map");
  const [map, setMap] = useState<L.Map | null>(null);
  const [status, setStatus] = useState<MapStatus>({ state: "loading" });
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (bbox) params.set("bbox", bbox);
  const geojsonUrl = `/api/stations/geojson/${params.size ? `?${params}` : ""}`;

  const searchHere = useCallback(() => {
    if (!map) return;
    const b = map.getBounds();
    const area = [Math.max(-180, b.getWest()), Math.max(-90, b.getSouth()), Math.min(180, b.getEast()), Math.min(90, b.getNorth())].map(round);
    const next = new URLSearchParams();
    if (q) next.set("q", q);
    next.set("bbox", area.join(","));
    router.push(`/?${next}`);
  }, [map, q, router]);

  return (
    <div className="map-frame" data-map-state={status.state} data-points={status.state === "ready" ? status.count : undefined}>
      <StationsMapView
        key={geojsonUrl}
        geojsonUrl={geojsonUrl}
        initialBbox={initialBbox}
        tileUrl={tileUrl}
        tileAttribution={tileAttribution}
        onMap={setMap}
        onStatus={setStatus}
      />
      <div className="map-toolbar">
        <button type="button" className="button secondary" onClick={searchHere} disabled={!map}>
          {t("searchHere")}
        </button>
      </div>
      <p className="map-status" role="status">
        {status.state === "loading" && t("loading")}
        {status.state === "ready" && t("onMap", { count: status.count })}
        {status.state === "error" && <span className="error-text">{status.message}</span>}
      </p>
    </div>
  );
}
