"use client";

import { useEffect, useMemo, useRef } from "react";
import L from "leaflet";
import { MapContainer, TileLayer, useMap } from "react-leaflet";
import { formatDateTime } from "@/lib/site/time";
import { lonLat } from "@/lib/site/geom";
import { STATUS_WORDS, valueText, type LatestStation } from "@/components/synoptic/types";

export interface SynopticMapViewProps {
  stations: LatestStation[];
  offsetMinutes: number;
  precisions: Record<number, number>;
  stationHref: (id: number) => string;
  tileUrl: string;
  tileAttribution: string;
  /** The view without stations: [min_lon, min_lat, max_lon, max_lat]. */
  defaultBbox: [number, number, number, number];
}

const MIN_HALF_SIZE = 0.02;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A marker as the reference draws it: the station's name, date and values, its frame coloured by freshness. */
function markerHtml(s: LatestStation, props: SynopticMapViewProps): string {
  const date = s.last_common_date ? formatDateTime(Date.parse(s.last_common_date) / 1000, props.offsetMinutes).slice(5) : "no data";
  const values = s.values.map((v) => `<li class="status-${v.status}" title="${escape(STATUS_WORDS[v.status])}">`
    + `<span class="synoptic-marker-title">${escape(v.title)}</span> ${escape(valueText(v, props.precisions[v.timeseries_group]))}</li>`).join("");
  return `<div class="synoptic-marker-box freshness-${s.freshness}" data-station="${s.station}" data-freshness="${s.freshness}">`
    + `<a href="${escape(props.stationHref(s.station))}">${escape(s.name)}</a>`
    + `<span class="synoptic-marker-date">${escape(date)}</span><ul>${values}</ul></div>`;
}

/** Room left around the stations, in pixels, besides the markers' own size. */
const EDGE = 12;
/** On the left, the zoom buttons' column too (10 px from the edge, 34 px wide): a card must not hide under them. */
const LEFT = 56;

/**
 * The markers; the first time, the map is fitted to the stations with the markers' cards inside
 * it. A card hangs right and down from its station, so the padding is larger at the bottom and
 * right, by the largest card's size (at most 60% of the map, for narrow phones), and on the left
 * it clears the zoom buttons. Later refreshes keep the user's view.
 */
function Markers({ fit, ...props }: SynopticMapViewProps & { fit: L.LatLngBounds | null }) {
  const map = useMap();
  const fitted = useRef(false);
  useEffect(() => {
    const layer = L.layerGroup().addTo(map);
    const cards: HTMLElement[] = [];
    for (const s of props.stations) {
      const point = lonLat(s.geom);
      if (!point) continue;
      const marker = L.marker([point[1], point[0]], {
        icon: L.divIcon({ html: markerHtml(s, props), className: "synoptic-marker", iconSize: undefined, iconAnchor: [0, 0] }),
        title: s.name,
        keyboard: false,
        riseOnHover: true,
      });
      marker.addTo(layer);
      const card = marker.getElement()?.querySelector<HTMLElement>(".synoptic-marker-box");
      if (card) cards.push(card);
    }
    if (fit && !fitted.current) {
      fitted.current = true;
      const size = map.getSize();
      const width = Math.max(0, ...cards.map((c) => c.offsetWidth));
      const height = Math.max(0, ...cards.map((c) => c.offsetHeight));
      map.fitBounds(fit, {
        paddingTopLeft: [LEFT, EDGE],
        paddingBottomRight: [Math.min(width + EDGE, size.x * 0.6), Math.min(height + EDGE, size.y * 0.6)],
        maxZoom: 12,
        animate: false,
      });
    }
    return () => {
      layer.remove();
    };
  }, [map, fit, props]);
  return null;
}

export default function SynopticMapView(props: SynopticMapViewProps) {
  const bounds = useMemo(() => {
    const points = props.stations.map((s) => lonLat(s.geom)).filter((p): p is [number, number] => p !== null);
    if (!points.length) return null;
    const b = L.latLngBounds(points.map(([lon, lat]) => [lat, lon]));
    const c = b.getCenter();
    // At least a few kilometres around a single station or stations close together.
    return b.extend([c.lat - MIN_HALF_SIZE, c.lng - MIN_HALF_SIZE]).extend([c.lat + MIN_HALF_SIZE, c.lng + MIN_HALF_SIZE]);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the first stations frame the map
  }, []);
  const [x0, y0, x1, y1] = props.defaultBbox;
  return (
    <MapContainer bounds={bounds ?? L.latLngBounds([y0, x0], [y1, x1])} boundsOptions={{ padding: [40, 40], maxZoom: 12 }} className="leaflet-map" maxZoom={18}>
      <TileLayer url={props.tileUrl} attribution={escape(props.tileAttribution)} maxZoom={18} />
      <Markers {...props} fit={bounds} />
    </MapContainer>
  );
}
