"use client";

import "leaflet/dist/leaflet.css";
import dynamic from "next/dynamic";
import type { PointMapViewProps } from "@/components/map/PointMapView";

const PointMapView = dynamic(() => import("@/components/map/PointMapView"), {
  ssr: false,
  loading: () => <div className="leaflet-map map-placeholder" aria-hidden="true" />,
});

export default function PointMap(props: PointMapViewProps) {
  return (
    <div className="map-frame small" role="region" aria-label={`Map showing the location of ${props.name}`}>
      <PointMapView {...props} />
    </div>
  );
}
