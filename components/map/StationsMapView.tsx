"use client";

import { useTranslations } from "next-intl";
import { useEffect, useMemo, useRef, useState } from "react";
import L from "leaflet";
import { MapContainer, TileLayer, useMap } from "react-leaflet";
import Supercluster from "supercluster";
import type { Bbox, StationFeature, StationFeatureCollection } from "@/components/map/types";

/**
 * The home page's map (api.md §16): every station of the search from ONE request to
 * stations/geojson/, clustered with supercluster so that 10,000 points stay smooth (only the
 * clusters and points in view are on the map), fitted to the answer's bounding box. Markers
 * are keyboard-focusable; a station's popup links to its page. Tiles are optional decoration:
 * without them the markers still work.
 */
export interface StationsMapViewProps {
  geojsonUrl: string;
  initialBbox: Bbox;
  tileUrl: string;
  tileAttribution: string;
  onMap?: (map: L.Map) => void;
  onStatus?: (status: MapStatus) => void;
}

export type MapStatus = { state: "loading" } | { state: "ready"; count: number } | { state: "error"; message: string };

type Props = Record<string, never> | { name: string; code: string; owner_name: string; last_update: string | null; id: number };

const boundsOf = (b: Bbox) => L.latLngBounds([b[1], b[0]], [b[3], b[2]]);

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The map's words in the page's language. */
type MapWords = ReturnType<typeof useTranslations<"map">>;

function popupHtml(f: StationFeature, t: MapWords, stationName: string): string {
  const p = f.properties;
  const update = escape(p.last_update ? t("lastUpdate", { at: p.last_update.replace("T", " ").replace("Z", " UTC") }) : t("noRecordsYet"));
  return `<div class="map-popup"><a href="/stations/${f.id}/">${escape(stationName)}</a>`
    + `${p.code ? ` <span class="code">${escape(p.code)}</span>` : ""}`
    + `<div>${escape(p.owner_name)}</div><div class="muted">${update}</div></div>`;
}

function clusterIcon(count: number): L.DivIcon {
  const size = count < 10 ? 34 : count < 100 ? 40 : count < 1000 ? 46 : 54;
  return L.divIcon({
    html: `<span data-count="${count}">${count < 10000 ? count : `${Math.round(count / 1000)}k`}</span>`,
    className: "cluster-marker",
    iconSize: [size, size],
  });
}

const stationIcon = (id: number) =>
  L.divIcon({ html: `<span data-count="1" data-station-id="${id}"></span>`, className: "station-marker", iconSize: [18, 18] });

function ClusterLayer({ features }: { features: StationFeature[] }) {
  const map = useMap();
  const t = useTranslations("map");
  const tc = useTranslations("common");
  const index = useMemo(() => {
    const sc = new Supercluster<Props, Props>({ radius: 56, maxZoom: 16, minPoints: 2 });
    sc.load(features.map((f) => ({ type: "Feature", geometry: f.geometry, properties: { ...f.properties, id: f.id } })));
    return sc;
  }, [features]);
  const byId = useMemo(() => new Map(features.map((f) => [f.id, f])), [features]);

  useEffect(() => {
    const layer = L.layerGroup().addTo(map);
    const render = () => {
      layer.clearLayers();
      const b = map.getBounds();
      const west = Math.max(-180, b.getWest());
      const east = Math.min(180, b.getEast());
      const south = Math.max(-90, b.getSouth());
      const north = Math.min(90, b.getNorth());
      const zoom = Math.max(0, Math.round(map.getZoom()));
      for (const c of index.getClusters([west, south, east, north], zoom)) {
        const [lon, lat] = c.geometry.coordinates;
        const props = c.properties as Props & { cluster?: boolean; cluster_id?: number; point_count?: number };
        if (props.cluster) {
          const count = props.point_count ?? 0;
          const marker = L.marker([lat, lon], { icon: clusterIcon(count), title: t("clusterTitle", { count: String(count) }), keyboard: true, riseOnHover: true });
          marker.on("click", () => {
            const z = Math.min(index.getClusterExpansionZoom(props.cluster_id!), map.getMaxZoom());
            map.setView([lat, lon], z);
          });
          marker.addTo(layer);
          marker.getElement()?.setAttribute("role", "button");
          marker.getElement()?.setAttribute("aria-label", t("clusterLabel", { count: String(count) }));
        } else {
          const f = byId.get((props as { id: number }).id);
          if (!f) continue;
          const name = f.properties.name || tc("station", { id: f.id });
          const marker = L.marker([lat, lon], { icon: stationIcon(f.id), title: name, keyboard: true, riseOnHover: true });
          marker.bindPopup(popupHtml(f, t, name), { minWidth: 160 });
          marker.addTo(layer);
          marker.getElement()?.setAttribute("role", "button");
          marker.getElement()?.setAttribute("aria-label", t("stationLabel", { name }));
        }
      }
    };
    render();
    map.on("moveend", render);
    return () => {
      map.off("moveend", render);
      layer.remove();
    };
  }, [map, index, byId, t, tc]);
  return null;
}

function MapHandle({ onMap }: { onMap?: (map: L.Map) => void }) {
  const map = useMap();
  useEffect(() => {
    onMap?.(map);
  }, [map, onMap]);
  return null;
}

function FitTo({ bbox }: { bbox: Bbox | null }) {
  const map = useMap();
  useEffect(() => {
    if (bbox) map.fitBounds(boundsOf(bbox), { padding: [24, 24], maxZoom: 13 });
  }, [map, bbox]);
  return null;
}

export default function StationsMapView({ geojsonUrl, initialBbox, tileUrl, tileAttribution, onMap, onStatus }: StationsMapViewProps) {
  const [data, setData] = useState<StationFeatureCollection | null>(null);
  const statusRef = useRef(onStatus);
  const t = useTranslations("map");
  useEffect(() => {
    statusRef.current = onStatus;
  }, [onStatus]);

  useEffect(() => {
    const controller = new AbortController();
    statusRef.current?.({ state: "loading" });
    fetch(geojsonUrl, { signal: controller.signal, headers: { Accept: "application/geo+json, application/json" }, credentials: "same-origin" })
      .then(async (response) => {
        if (!response.ok) {
          let detail = "";
          try {
            const body = await response.json();
            detail = Object.values(body as Record<string, unknown>).flat().join(" ");
          } catch {
            /* not JSON */
          }
          throw new Error(detail || t("loadFailed", { status: response.status }));
        }
        return (await response.json()) as StationFeatureCollection;
      })
      .then((collection) => {
        setData(collection);
        statusRef.current?.({ state: "ready", count: collection.features.length });
      })
      .catch((e: Error) => {
        if (e.name !== "AbortError") statusRef.current?.({ state: "error", message: e.message });
      });
    return () => controller.abort();
  }, [geojsonUrl, t]);

  return (
    <MapContainer
      bounds={boundsOf(initialBbox)}
      boundsOptions={{ padding: [24, 24], maxZoom: 13 }}
      preferCanvas
      className="leaflet-map"
      worldCopyJump={false}
      maxZoom={18}
    >
      <TileLayer url={tileUrl} attribution={escape(tileAttribution)} maxZoom={18} />
      <MapHandle onMap={onMap} />
      {data && <FitTo bbox={data.bbox} />}
      {data && <ClusterLayer features={data.features} />}
    </MapContainer>
  );
}
