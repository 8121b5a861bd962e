"use client";

import L from "leaflet";
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { CircleMarker, MapContainer, Marker, TileLayer, useMap, useMapEvents } from "react-leaflet";

export interface PickerMapProps {
  point: [number, number] | null;
  onPick(lon: number, lat: number): void;
  /** [min_lon, min_lat, max_lon, max_lat] shown when there is no point yet. */
  viewport: [number, number, number, number];
  tileUrl: string;
  tileAttribution: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
const icon = L.divIcon({ html: `<span data-count="1"></span>`, className: "station-marker station-marker-large picker-marker", iconSize: [22, 22] });

/** Clicks place the point. */
function Clicks({ onPick }: { onPick: PickerMapProps["onPick"] }) {
  useMapEvents({ click: (e) => onPick(e.latlng.lng, e.latlng.lat) });
  return null;
}

/** Keeps a typed point in view. */
function Follow({ point }: { point: [number, number] | null }) {
  const map = useMap();
  useEffect(() => {
    if (point && !map.getBounds().contains([point[1], point[0]])) map.panTo([point[1], point[0]]);
  }, [map, point]);
  return null;
}

interface Neighbour {
  id: number;
  lon: number;
  lat: number;
}

/** The other stations, faintly, as landmarks (the map must be usable without tiles). */
function Neighbours() {
  const [points, setPoints] = useState<Neighbour[]>([]);
  useEffect(() => {
    let live = true;
    fetch("/api/stations/geojson/").then((r) => (r.ok ? r.json() : null)).then((json) => {
      const features = (json?.features ?? []) as { id: number; geometry: { coordinates: [number, number] } }[];
      if (live) setPoints(features.map((f) => ({ id: f.id, lon: f.geometry.coordinates[0], lat: f.geometry.coordinates[1] })));
    }).catch(() => undefined);
    return () => { live = false; };
  }, []);
  return (
    <>
      {points.map((p) => (
        <CircleMarker key={p.id} center={[p.lat, p.lon]} radius={4} pathOptions={{ color: "#4f5d69", weight: 1, fillOpacity: 0.35 }} interactive={false} />
      ))}
    </>
  );
}

/** The map of the station form: click or drag the marker to set the location; works without tiles. */
export default function PickerMap({ point, onPick, viewport, tileUrl, tileAttribution }: PickerMapProps) {
  const t = useTranslations("managePickers");
  const bounds: L.LatLngBoundsExpression = [[viewport[1], viewport[0]], [viewport[3], viewport[2]]];
  return (
    <MapContainer {...(point ? { center: [point[1], point[0]] as L.LatLngExpression, zoom: 11 } : { bounds })} className="leaflet-map"
      scrollWheelZoom={false} maxZoom={18} keyboard={false}>
      <TileLayer url={tileUrl} attribution={escape(tileAttribution)} maxZoom={18} />
      <Neighbours />
      <Clicks onPick={onPick} />
      <Follow point={point} />
      {point && (
        <Marker position={[point[1], point[0]]} icon={icon} draggable keyboard={false} title={t("marker")}
          eventHandlers={{ dragend: (e) => { const p = (e.target as L.Marker).getLatLng(); onPick(p.lng, p.lat); } }} />
      )}
    </MapContainer>
  );
}
