"use client";

import "leaflet/dist/leaflet.css";
import dynamic from "next/dynamic";
import { useTranslations } from "next-intl";
import type { PointMapViewProps } from "@/components/map/PointMapView";

const PointMapView = dynamic(() => import("@/components/map/PointMapView"), {
  ssr: false,
  loading: () => <div className="leaflet-map map-placeholder" aria-hidden="true" />,
});

export default function PointMap(props: PointMapViewProps) {
  const t = useTranslations("map");
  return (
    <div className="map-frame small" role="region" aria-label={t("location", { name: props.name })}>
      <PointMapView {...props} />
    </div>
  );
}
