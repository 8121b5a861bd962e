"use client";

import { useEffect, useMemo, useRef } from "react";
import L from "leaflet";
import { MapContainer, TileLayer, useMap } from "react-leaflet";
import { formatDateTime } from "@/lib/site/time";
import { lonLat } from "@/lib/site/geom";
import { valueText, type LatestStation, type LatestStatus } from "@/components/synoptic/types";
import type { Locale } from "@/lib/i18n/locales";

export interface SynopticMapViewProps {
  stations: LatestStation[];
  offsetMinutes: number;
  precisions: Record<number, number>;
  stationHref: (id: number) => string;
  tileUrl: string;
  tileAttribution: string;
  /** The view without stations: [min_lon, min_lat, max_lon, max_lat]. */
  defaultBbox: [number, number, number, number];
  /** The markers' words in the page's language. */
  words: { locale: Locale; hidden: string; noData: string; status: Record<LatestStatus, string> };
}

const MIN_HALF_SIZE = 0.02;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A marker as the reference draws it: the station's name, date and values, its frame coloured by freshness. */
function markerHtml(s: LatestStation, props: SynopticMapViewProps): string {
  const { words } = props;
  const date = s.last_common_date ? formatDateTime(Date.parse(s.last_common_date) / 1000, props.offsetMinutes).slice(5) : words.noData;
  const values = s.values.map((v) => `<li class="status-${v.status}" title="${escape(words.status[v.status])}">`
    + `<span class="synoptic-marker-title">${escape(v.title)}</span> ${escape(valueText(v, props.precisions[v.timeseries_group], words))}</li>`).join("");
  return `<div class="synoptic-marker-box freshness-${s.freshness}" data-station="${s.station}" data-freshness="${s.freshness}">`
    + `<a href="${escape(props.stationHref(s.station))}">${escape(s.name)}</a>`
    + `<span class="synoptic-marker-date">${escape(date)}</span><ul>${values}</ul></div>`;
}

/** Room left around the stations, in pixels, besides the markers' own size. */
const EDGE = 12;
/** On the left, the zoom buttons' column too (10 px from the edge, 34 px wide): a card must not hide under them. */
const LEFT = 56;

/** Space kept between two cards, in pixels. */
const GAP = 3;
/** How far a card's corner lies from its station (the card's CSS `left` and `top`: −7 px). */
const CORNER = 7;

type Rect = { x0: number; y0: number; x1: number; y1: number };
const overlaps = (a: Rect, b: Rect) => a.x0 < b.x1 + GAP && b.x0 < a.x1 + GAP && a.y0 < b.y1 + GAP && b.y0 < a.y1 + GAP;

/**
 * Places the cards so that none covers another (stations close together, a phone's narrow map):
 * each card, taken from the top, hangs right and down from its station as drawn, else left,
 * up, or up and left of it (the corner at the station squared, data-place), else below the
 * cards it would cover, joined to its station by a line drawn under the cards. Returns the
 * union of the cards, in layer points. Cards only ever move down in the last case, so it ends.
 */
function declutter(map: L.Map, placed: { marker: L.Marker; card: HTMLElement }[], leaders: L.LayerGroup): Rect | null {
  leaders.clearLayers();
  const items = placed.map(({ marker, card }) => ({ marker, card, at: map.latLngToLayerPoint(marker.getLatLng()), width: card.offsetWidth, height: card.offsetHeight }))
    .sort((a, b) => a.at.y - b.at.y || a.at.x - b.at.x);
  const taken: Rect[] = [];
  for (const item of items) {
    const { at, width, height } = item;
    const rect = (dx: number, dy: number): Rect => ({ x0: at.x - CORNER + dx, y0: at.y - CORNER + dy, x1: at.x - CORNER + dx + width, y1: at.y - CORNER + dy + height });
    const sides: [string, number, number][] = [["right-down", 0, 0], ["left-down", 2 * CORNER - width, 0], ["right-up", 0, 2 * CORNER - height], ["left-up", 2 * CORNER - width, 2 * CORNER - height]];
    let place = sides.find(([, dx, dy]) => !taken.some((r) => overlaps(rect(dx, dy), r)));
    let shifted = false;
    if (!place) {
      let dy = 0;
      for (let moved = true; moved;) {
        moved = false;
        for (const r of taken) {
          if (overlaps(rect(0, dy), r)) {
            dy = r.y1 + GAP - (at.y - CORNER);
            moved = true;
          }
        }
      }
      place = ["right-down", 0, dy];
      shifted = true;
    }
    const [side, dx, dy] = place;
    taken.push(rect(dx, dy));
    item.card.style.transform = dx || dy ? `translate(${Math.round(dx)}px, ${Math.round(dy)}px)` : "";
    item.card.dataset.place = side;
    if (shifted) {
      const corner = map.layerPointToLatLng(L.point(at.x - CORNER + 1, at.y - CORNER + dy + 1));
      L.polyline([item.marker.getLatLng(), corner], { className: "synoptic-leader", weight: 2, interactive: false }).addTo(leaders);
    }
  }
  if (!taken.length) return null;
  return taken.reduce((u, r) => ({ x0: Math.min(u.x0, r.x0), y0: Math.min(u.y0, r.y0), x1: Math.max(u.x1, r.x1), y1: Math.max(u.y1, r.y1) }));
}

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
    // Lines from moved cards to their stations: in the overlay pane, under the markers' cards.
    const leaders = L.layerGroup().addTo(map);
    const cards: HTMLElement[] = [];
    const placed: { marker: L.Marker; card: HTMLElement }[] = [];
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
      if (card) {
        cards.push(card);
        placed.push({ marker, card });
      }
    }
    const fitNow = fit !== null && !fitted.current;
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
    const relayout = () => declutter(map, placed, leaders);
    const union = relayout();
    if (union && fitNow) {
      // Cards moved down may end below the map: bring them into it, the top ones staying in view.
      const size = map.getSize();
      const top = map.layerPointToContainerPoint(L.point(union.x0, union.y0));
      const bottom = map.layerPointToContainerPoint(L.point(union.x1, union.y1));
      const down = Math.max(0, Math.min(bottom.y - (size.y - EDGE), top.y - EDGE));
      const right = Math.max(0, Math.min(bottom.x - (size.x - EDGE), top.x - LEFT));
      if (down || right) map.panBy([right, down], { animate: false });
    }
    map.on("zoomend", relayout);
    return () => {
      map.off("zoomend", relayout);
      layer.remove();
      leaders.remove();
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
