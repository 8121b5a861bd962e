"use client";

import L from "leaflet";
import { MapContainer, Marker, TileLayer } from "react-leaflet";

export interface PointMapViewProps {
  lon: number;
  lat: number;
  name: string;
  tileUrl: string;
  tileAttribution: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
const icon = L.divIcon({ html: `<span data-count="1"></span>`, className: "station-marker station-marker-large", iconSize: [22, 22] });

/** The small map of a station page: its marker, nothing else. */
export default function PointMapView({ lon, lat, name, tileUrl, tileAttribution }: PointMapViewProps) {
  return (
    <MapContainer center={[lat, lon]} zoom={11} preferCanvas className="leaflet-map" scrollWheelZoom={false} maxZoom={18}>
      <TileLayer url={tileUrl} attribution={escape(tileAttribution)} maxZoom={18} />
      <Marker position={[lat, lon]} icon={icon} title={name} keyboard={false} />
    </MapContainer>
  );
}
