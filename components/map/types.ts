/** The GeoJSON of api.md §4.8, as the map reads it. */
export type Bbox = [number, number, number, number];

export interface StationFeature {
  type: "Feature";
  id: number;
  geometry: { type: "Point"; coordinates: [number, number] };
  properties: { name: string; code: string; owner: number; owner_name: string; last_update: string | null };
}

export interface StationFeatureCollection {
  type: "FeatureCollection";
  bbox: Bbox;
  features: StationFeature[];
}
