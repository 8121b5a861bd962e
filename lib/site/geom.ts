/** Reading the stations' EWKT points on the site, on the server and in the browser (no server imports). */

/** Parses "SRID=4326;POINT (lon lat)". */
export function lonLat(geom: string): [number, number] | null {
  const m = /POINT\s*\(\s*(\S+)\s+(\S+)\s*\)/.exec(geom);
  if (!m) return null;
  const lon = Number(m[1]);
  const lat = Number(m[2]);
  return Number.isFinite(lon) && Number.isFinite(lat) ? [lon, lat] : null;
}
