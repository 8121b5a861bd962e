"use client";

import "leaflet/dist/leaflet.css";
import dynamic from "next/dynamic";
import { useTranslations } from "next-intl";
import { useEffect, useId, useRef, useState } from "react";
import { locate } from "@/app/manage/actions/stations";
import { FieldMessages, useFormState } from "@/components/manage/Form";
import { valueText, type FormState } from "@/lib/site/form-state";

const PickerMap = dynamic(() => import("@/components/manage/PickerMap"), {
  ssr: false,
  loading: () => <div className="leaflet-map map-placeholder" aria-hidden="true" />,
});

export interface LocationPickerProps {
  viewport: [number, number, number, number];
  tileUrl: string;
  tileAttribution: string;
}

/** Systems offered in the list; any other EPSG code may be typed (api.md §4.2 lists what the server knows). */
const SRIDS: [string, { key: "wgs84" | "greekGrid" | "etrs89" | "ggrs87" } | string][] = [
  ["4326", { key: "wgs84" }], ["2100", { key: "greekGrid" }], ["4258", { key: "etrs89" }],
  ["4121", { key: "ggrs87" }], ["3857", "Web Mercator"], ["3035", "ETRS89 / LAEA Europe"],
  ["32634", "WGS84 / UTM 34N"], ["32635", "WGS84 / UTM 35N"], ["25834", "ETRS89 / UTM 34N"], ["25835", "ETRS89 / UTM 35N"],
];

const NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
/** The point of WGS84 coordinates (null when none is typed); undefined when the server must read them. */
function directPoint(x: string, y: string, srid: string): [number, number] | null | undefined {
  if (!x.trim() && !y.trim()) return null;
  const wgs84 = srid.trim() === "4326" || srid.trim() === "";
  if (wgs84 && NUMBER.test(x) && NUMBER.test(y) && Math.abs(Number(x)) <= 180 && Math.abs(Number(y)) <= 90) return [Number(x), Number(y)];
  return undefined;
}

/** A picked point, to about 10 cm. */
const coordinate = (v: number) => String(Number(v.toFixed(6)));

/**
 * The location of the station form (management.md §2): click or drag a marker on the map, or
 * type x and y in any coordinate system. The server composes `geom` from the three fields and
 * reads it as the API does; typed coordinates in another system are shown on the map through the
 * same reading (the `locate` action), with its message when they are wrong.
 */
export default function LocationPicker(props: LocationPickerProps) {
  const state = useFormState();
  return <Location key={state.seq} state={state} {...props} />;
}

function Location({ state, viewport, tileUrl, tileAttribution }: LocationPickerProps & { state: FormState }) {
  const t = useTranslations("managePickers");
  const tf = useTranslations("manageForm");
  const id = useId();
  const [x, setX] = useState(valueText(state.values, "geom_x"));
  const [y, setY] = useState(valueText(state.values, "geom_y"));
  const [srid, setSrid] = useState(valueText(state.values, "geom_srid") || "4326");
  // Where the typed coordinates are: at once for WGS84, through the server's reading otherwise.
  const key = `${x}|${y}|${srid}`;
  const direct = directPoint(x, y, srid);
  const [remote, setRemote] = useState<{ key: string; point: [number, number] | null; problem: string | null }>({ key: "", point: null, problem: null });
  const request = useRef(0);
  useEffect(() => {
    if (direct !== undefined) return;
    const ticket = ++request.current;
    const timer = setTimeout(async () => {
      const answer = await locate(x, y, srid);
      if (ticket !== request.current) return;
      setRemote("error" in answer ? { key, point: null, problem: answer.error || null } : { key, point: [answer.lon, answer.lat], problem: null });
    }, 350);
    return () => clearTimeout(timer);
  }, [direct, key, x, y, srid]);
  const point = direct !== undefined ? direct : remote.key === key ? remote.point : null;
  const problem = direct === undefined && remote.key === key ? remote.problem : null;

  const pick = (lon: number, lat: number) => {
    setX(coordinate(lon));
    setY(coordinate(lat));
    setSrid("4326");
  };
  const errors = state.errors.geom;
  const stored = state.current && ["geom_x", "geom_y"].some((k) => valueText(state.current, k) !== valueText(state.values, k))
    ? `${valueText(state.current, "geom_x")}, ${valueText(state.current, "geom_y")} (EPSG:${valueText(state.current, "geom_srid")})` : null;
  const describedBy = [`${id}-help`, errors?.length ? `${id}-errors` : "", problem ? `${id}-preview` : ""].filter(Boolean).join(" ");

  return (
    <fieldset className={`field location-picker${errors?.length ? " has-errors" : ""}`}>
      <legend>{t("location")} <span className="required" aria-hidden="true">*</span></legend>
      <div className="map-frame small picker-frame" data-point={point ? `${point[0]},${point[1]}` : ""}>
        <PickerMap point={point} onPick={pick} viewport={viewport} tileUrl={tileUrl} tileAttribution={tileAttribution} />
      </div>
      <p className="help" id={`${id}-help`}>{t("locationHelp")}</p>
      <div className="coordinate-fields">
        <div>
          <label htmlFor={`${id}-x`}>{t("x")}</label>
          <input id={`${id}-x`} name="geom_x" value={x} onChange={(e) => setX(e.target.value)} inputMode="decimal" autoComplete="off"
            aria-invalid={errors?.length ? true : undefined} aria-describedby={describedBy} />
        </div>
        <div>
          <label htmlFor={`${id}-y`}>{t("y")}</label>
          <input id={`${id}-y`} name="geom_y" value={y} onChange={(e) => setY(e.target.value)} inputMode="decimal" autoComplete="off"
            aria-invalid={errors?.length ? true : undefined} aria-describedby={describedBy} />
        </div>
        <div>
          <label htmlFor={`${id}-srid`}>{t("srid")}</label>
          <input id={`${id}-srid`} name="geom_srid" value={srid} onChange={(e) => setSrid(e.target.value)} inputMode="numeric" list={`${id}-srids`}
            autoComplete="off" aria-describedby={`${id}-srid-help`} />
          <datalist id={`${id}-srids`}>
            {SRIDS.map(([code, label]) => <option key={code} value={code}>{typeof label === "string" ? label : t(label.key)}</option>)}
          </datalist>
          <p className="help" id={`${id}-srid-help`}>{t("sridHelp")}</p>
        </div>
      </div>
      {problem && !errors?.length && <p className="help warning" id={`${id}-preview`}>{problem}</p>}
      <FieldMessages id={`${id}-errors`} errors={errors} />
      {stored && <p className="stored-value">{tf("savedNow", { value: stored })}</p>}
    </fieldset>
  );
}
