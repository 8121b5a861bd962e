"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import L from "leaflet";
import { MapContainer, TileLayer, useMap } from "react-leaflet";
import type { StationFeature } from "@/components/map/types";

export interface StationPickerMapProps {
  features: StationFeature[];
  picked: number[];
  onPick: (id: number) => void;
  tileUrl: string;
  tileAttribution: string;
  defaultBbox: [number, number, number, number];
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Above this many stations the circles are drawn on a canvas (smooth with 10,000), else as SVG elements (each its own element). */
const CANVAS_ABOVE = 2000;

/** A circle per station; the picked ones filled red. A click adds a station. */
function Stations({ features, picked, onPick }: Pick<StationPickerMapProps, "features" | "picked" | "onPick">) {
  const map = useMap();
  const t = useTranslations("synopticForm");
  // The layer is drawn again only when the stations or the choice change, not on every keystroke in the form.
  const pick = useRef(onPick);
  useEffect(() => {
    pick.current = onPick;
  }, [onPick]);
  const pickedKey = picked.join(",");
  useEffect(() => {
    const chosen = new Set(pickedKey.split(",").filter(Boolean).map(Number));
    const renderer = features.length > CANVAS_ABOVE ? L.canvas({ padding: 0.3 }) : L.svg({ padding: 0.3 });
    const layer = L.layerGroup().addTo(map);
    for (const f of features) {
      const [lon, lat] = f.geometry.coordinates;
      const on = chosen.has(f.id);
      const circle = L.circleMarker([lat, lon], {
        renderer, radius: on ? 8 : 6, weight: 2, color: on ? "#7a1a14" : "#0b3954", fillColor: on ? "#b3261e" : "#5fa8d3", fillOpacity: 0.9,
        className: `station-pick station-pick-${f.id}${on ? " picked" : ""}`,
      });
      circle.bindTooltip(escape(f.properties.name || t("stationFallback", { id: String(f.id) })));
      circle.on("click", () => pick.current(f.id));
      circle.addTo(layer);
    }
    return () => {
      layer.remove();
    };
  }, [map, features, pickedKey, t]);
  return null;
}

/** Fits the map to the stations once they are loaded. */
function Fit({ features }: { features: StationFeature[] }) {
  const map = useMap();
  useEffect(() => {
    if (!features.length) return;
    const bounds = L.latLngBounds(features.map((f) => [f.geometry.coordinates[1], f.geometry.coordinates[0]]));
    map.fitBounds(bounds, { padding: [24, 24], maxZoom: 12 });
  }, [map, features]);
  return null;
}

export default function StationPickerMap({ features, picked, onPick, tileUrl, tileAttribution, defaultBbox }: StationPickerMapProps) {
  const [x0, y0, x1, y1] = defaultBbox;
  return (
    <MapContainer bounds={L.latLngBounds([y0, x0], [y1, x1])} className="leaflet-map" maxZoom={18}>
      <TileLayer url={tileUrl} attribution={escape(tileAttribution)} maxZoom={18} />
      <Fit features={features} />
      <Stations features={features} picked={picked} onPick={onPick} />
    </MapContainer>
  );
}
