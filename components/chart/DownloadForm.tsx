"use client";

import { useSearchParams } from "next/navigation";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { useHydrated } from "@/components/site/useHydrated";
import { seriesApiPath } from "@/lib/site/paths";
import { useZoneWords } from "@/components/site/zone-words";
import { offsetLabel, zoneChoices } from "@/lib/site/time";

/**
 * The download form of a group page (api.md §16): a plain GET link to the series' data/
 * endpoint (§8.2) with fmt, start_date, end_date and timezone, for the series the user may read.
 */
export interface DownloadSeries {
  id: number;
  label: string;
}

export interface DownloadFormProps {
  stationId: number;
  groupId: number;
  series: DownloadSeries[];
  defaultSeriesId: number | null;
  displayZone: string;
  offsetMinutes: number;
}

/** The formats of the data/ endpoint, each with its label's key. */
const FORMATS = ["csv", "hts", "hts2"] as const;

export default function DownloadForm({ stationId, groupId, series, defaultSeriesId, displayZone, offsetMinutes }: DownloadFormProps) {
  // The series the chart shows (its `series` parameter, which the chart changes without a new
  // page), unless the user has picked another here since the chart's last change.
  const chartSeries = Number(useSearchParams().get("series")) || defaultSeriesId;
  const [picked, setPicked] = useState<{ id: number; chart: number | null } | null>(null);
  const offered = (id: number | null) => (id !== null && series.some((s) => s.id === id) ? id : undefined);
  const seriesId = picked && picked.chart === chartSeries ? picked.id : (offered(chartSeries) ?? offered(defaultSeriesId) ?? series[0]?.id);
  const [fmt, setFmt] = useState("csv");
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const [timezone, setTimezone] = useState(displayZone);
  const live = useHydrated();
  const t = useTranslations("download");
  const zoneWords = useZoneWords();
  if (!series.length || seriesId === undefined) {
    return <p className="muted">{t("nothing")}</p>;
  }
  // The station's zone first, then every fixed-offset zone (the ones HTS files can state).
  const zones = zoneChoices({ station: displayZone, words: zoneWords });

  const query = new URLSearchParams({ fmt });
  // Dates without a time are read in the station's time zone; the end date includes its whole day.
  if (start) query.set("start_date", `${start}T00:00`);
  if (end) query.set("end_date", `${end}T23:59:59`);
  query.set("timezone", timezone);
  const href = `${seriesApiPath(stationId, groupId, seriesId)}data/?${query}`;
  const invalid = start !== "" && end !== "" && start > end;

  return (
    <form className="download-form" onSubmit={(e) => e.preventDefault()} aria-describedby="download-help" data-client="" data-hydrated={live || undefined}>
      <div className="field">
        <label htmlFor="download-series">{t("timeSeries")}</label>
        <select id="download-series" value={seriesId} onChange={(e) => setPicked({ id: Number(e.target.value), chart: chartSeries })}>
          {series.map((s) => (
            <option key={s.id} value={s.id}>{s.label}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="download-format">{t("format")}</label>
        <select id="download-format" value={fmt} onChange={(e) => setFmt(e.target.value)}>
          {FORMATS.map((f) => (
            <option key={f} value={f}>{t(f)}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="download-start">{t("startDate")}</label>
        <input id="download-start" type="date" value={start} onChange={(e) => setStart(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="download-end">{t("endDate")}</label>
        <input id="download-end" type="date" value={end} onChange={(e) => setEnd(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="download-timezone">{t("timeZone")}</label>
        <select id="download-timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)}>
          {zones.map((z) => (
            <option key={z.value} value={z.value}>{z.label}</option>
          ))}
        </select>
      </div>
      <div className="field actions">
        {invalid ? (
          <p className="field-error" role="alert">{t("startAfterEnd")}</p>
        ) : (
          <a className="button" href={href} download>
            {t("download")}
          </a>
        )}
      </div>
      <p id="download-help" className="help">
        {t("help", { zone: offsetLabel(offsetMinutes) })}
      </p>
    </form>
  );
}
