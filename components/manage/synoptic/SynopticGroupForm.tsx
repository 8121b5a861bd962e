"use client";

import { groupTitle } from "@/lib/site/names";
import "@/components/synoptic/synoptic.css";
import { useTranslations } from "next-intl";
import { startTransition, useActionState, useState, type FormEvent, type ReactNode } from "react";
import FieldErrors from "@/components/accounts/FieldErrors";
import { useHydrated } from "@/components/site/useHydrated";
import StationPicker from "@/components/manage/synoptic/StationPicker";
import { saveSynopticGroup, stationChoicesAction } from "@/app/manage/synoptic/actions";
import type { GroupChoice, StationChoice, SynopticGroupJson, SynopticSeriesDefinition, SynopticStationDefinition } from "@/lib/synoptic";
import { initialFormState, valueList, valueText, type FormValues } from "@/lib/site/form-state";
import { withTypedTimeStep } from "@/lib/site/form-words";
import { zoneChoiceLabel, zoneChoices } from "@/lib/site/time";

/**
 * The form of a synoptic group (synoptic.md §2, management.md): its fields, and its stations
 * picked on a map or from a list, each with the groups to show, their limits and rate-of-change
 * thresholds ("10min 7.3", one per line, as the reference's forms take them). The stations go
 * to the server as the API's JSON, so the messages are the API's, shown next to what they concern.
 */
export interface SynopticGroupFormProps {
  initial: SynopticGroupJson | null;
  /** The management forms' token (lib/site/form-token.ts). */
  token: string;
  choices: StationChoice[];
  zones: readonly string[];
  tileUrl: string;
  tileAttribution: string;
  defaultBbox: [number, number, number, number];
}

interface SeriesDraft {
  group: number;
  title: string;
  subtitle: string;
  low: string;
  high: string;
  chartMin: string;
  chartMax: string;
  rateOfChange: boolean;
  symmetric: boolean;
  thresholds: string;
}

interface StationDraft {
  station: StationChoice;
  series: SeriesDraft[];
}

const numberText = (n: number | null) => (n === null ? "" : String(n));

function seriesDraft(s: SynopticSeriesDefinition): SeriesDraft {
  return {
    group: s.timeseries_group, title: s.title, subtitle: s.subtitle, low: numberText(s.low_limit), high: numberText(s.high_limit),
    chartMin: numberText(s.default_chart_min), chartMax: numberText(s.default_chart_max), rateOfChange: s.rate_of_change !== null,
    symmetric: s.rate_of_change?.symmetric ?? false, thresholds: (s.rate_of_change?.thresholds ?? []).map((t) => `${t.delta_t} ${t.allowed_diff}`).join("\n"),
  };
}

const emptySeries = (group: number): SeriesDraft => ({ group, title: "", subtitle: "", low: "", high: "", chartMin: "", chartMax: "", rateOfChange: false, symmetric: false, thresholds: "" });

/** A number typed, or the text itself when it is not one (the server then says so), or null when empty. */
function typed(text: string): number | string | null {
  const t = text.trim();
  if (t === "") return null;
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : t;
}

/** "10min 7.3" per line (tab, comma or spaces between) → thresholds. */
function thresholds(text: string) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((line) => {
    const [delta, diff] = withTypedTimeStep(line).split(/[\s,;]+/);
    return diff === undefined ? { delta_t: delta } : { delta_t: delta, allowed_diff: typed(diff) };
  });
}

function stationsJson(drafts: StationDraft[]): string {
  return JSON.stringify(drafts.map((d) => ({
    station: d.station.id,
    timeseries_groups: d.series.map((s) => ({
      timeseries_group: s.group, title: s.title, subtitle: s.subtitle, low_limit: typed(s.low), high_limit: typed(s.high),
      default_chart_min: typed(s.chartMin), default_chart_max: typed(s.chartMax),
      rate_of_change: s.rateOfChange ? { symmetric: s.symmetric, thresholds: thresholds(s.thresholds) } : null,
    })),
  })));
}

/** The stations' messages ("stations[1].timeseries_groups[0].high_limit: …") by station and series. */
function stationMessages(messages: string[] = []) {
  const general: string[] = [];
  const byStation = new Map<number, string[]>();
  const bySeries = new Map<string, string[]>();
  for (const m of messages) {
    const match = /^stations\[(\d+)\](?:\.timeseries_groups\[(\d+)\])?(?:\.|: )?(.*)$/.exec(m);
    if (!match) {
      general.push(m);
      continue;
    }
    const [, i, j, rest] = match;
    const text = rest.replace(/^timeseries_group: /, "").replace(/^station: /, "");
    if (j === undefined) byStation.set(Number(i), [...(byStation.get(Number(i)) ?? []), text]);
    else bySeries.set(`${i}:${j}`, [...(bySeries.get(`${i}:${j}`) ?? []), text]);
  }
  return { general, byStation, bySeries };
}

const groupLabel = (g: GroupChoice, fallback: (id: number) => string) => `${groupTitle(g, fallback)}${g.name && g.variable && g.name !== g.variable ? ` (${g.variable})` : ""}${g.unit ? `, ${g.unit}` : ""}`;

/** A series' on/off setting, a whole row wide. */
function Toggle({ checked, onChange, label }: { checked: boolean; onChange: (on: boolean) => void; label: ReactNode }) {
  return (
    <div className="wide">
      <label className="synoptic-group-toggle">
        <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
        {label}
      </label>
    </div>
  );
}

export default function SynopticGroupForm({ initial, token, choices, zones, tileUrl, tileAttribution, defaultBbox }: SynopticGroupFormProps) {
  const t = useTranslations("synopticForm");
  const groupFallback = (id: number) => t("groupFallback", { id: String(id) });
  const [state, dispatch, pending] = useActionState(saveSynopticGroup, initialFormState({}));
  const live = useHydrated();
  const [name, setName] = useState(initial?.name ?? "");
  const [slug, setSlug] = useState(initial?.slug ?? "");
  const [zone, setZone] = useState(initial?.display_timezone ?? "Etc/GMT");
  const [fresh, setFresh] = useState(String(initial?.fresh_time_limit ?? 3600));
  const [emails, setEmails] = useState((initial?.early_warning_emails ?? []).join("\n"));
  const [drafts, setDrafts] = useState<StationDraft[]>(() => (initial?.stations ?? []).flatMap((s) => {
    const station = choices.find((c) => c.id === s.station);
    return station ? [{ station, series: s.timeseries_groups.map(seriesDraft) }] : [];
  }));
  const [adding, setAdding] = useState<number | null>(null);
  const errors = state.errors;
  const messages = stationMessages(errors.stations);
  const picked = drafts.map((d) => d.station.id);

  async function addStation(id: number) {
    if (picked.includes(id)) return;
    setAdding(id);
    try {
      const [station] = await stationChoicesAction([id]);
      if (station) setDrafts((ds) => (ds.some((d) => d.station.id === id) ? ds : [...ds, { station, series: [] }]));
    } finally {
      setAdding(null);
    }
  }
  const update = (i: number, f: (d: StationDraft) => StationDraft) => setDrafts((ds) => ds.map((d, k) => (k === i ? f(d) : d)));
  const move = (i: number, by: number) => setDrafts((ds) => {
    const j = i + by;
    if (j < 0 || j >= ds.length) return ds;
    const next = [...ds];
    [next[i], next[j]] = [next[j], next[i]];
    return next;
  });
  const toggleGroup = (i: number, group: number, on: boolean) => update(i, (d) => ({
    ...d, series: on ? [...d.series, emptySeries(group)] : d.series.filter((s) => s.group !== group),
  }));
  const setSeries = (i: number, group: number, change: Partial<SeriesDraft>) => update(i, (d) => ({
    ...d, series: d.series.map((s) => (s.group === group ? { ...s, ...change } : s)),
  }));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    data.set("stations", stationsJson(drafts));
    startTransition(() => dispatch(data));
  }

  const field = (id: string, label: string, name: string, input: ReactNode, help?: string) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {input}
      {help && <p className="help" id={`${id}-help`}>{help}</p>}
      <FieldErrors id={`${name}-errors`} errors={errors[name]} />
    </div>
  );
  const describedBy = (name: string, help?: string) => [help, errors[name]?.length ? `${name}-errors` : undefined].filter(Boolean).join(" ") || undefined;

  return (
    <form onSubmit={submit} className="synoptic-editor" data-client="" data-hydrated={live || undefined} noValidate>
      <input type="hidden" name="csrfmiddlewaretoken" value={token} />
      {initial && <input type="hidden" name="id" value={initial.id} />}
      {/* After a refusal as stale, the form carries the stored version's: saving again replaces the version shown (the user has seen it). */}
      {initial && <input type="hidden" name="last_modified" value={state.values.last_modified !== undefined ? valueText(state.values, "last_modified") : (initial.last_modified ?? "")} />}
      {errors.form && <div className="form-errors" role="alert"><p>{errors.form.join(" ")}</p></div>}
      {!errors.form && Object.keys(errors).length > 0 && <p className="form-errors" role="alert">{t("correctErrors")}</p>}
      {state.current && initial && <ConflictNote id={initial.id} current={state.current} choices={choices} />}

      <section className="card stacked-form" aria-labelledby="about-heading">
        <h2 id="about-heading">{t("about")}</h2>
        {field("sg-name", t("name"), "name", <input id="sg-name" name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={50} required aria-invalid={!!errors.name} aria-describedby={describedBy("name")} />)}
        {field("sg-slug", t("slug"), "slug", <input id="sg-slug" name="slug" value={slug} onChange={(e) => setSlug(e.target.value)} maxLength={50} required aria-invalid={!!errors.slug} aria-describedby={describedBy("slug", "sg-slug-help")} />,
          t("slugHelp", { slug: "<slug>" }))}
        {field("sg-zone", t("zone"), "display_timezone", (
          <select id="sg-zone" name="display_timezone" value={zone} onChange={(e) => setZone(e.target.value)} aria-invalid={!!errors.display_timezone} aria-describedby={describedBy("display_timezone")}>
            {zoneChoices().filter((z) => zones.includes(z.value)).map((z) => <option key={z.value} value={z.value}>{z.label}</option>)}
          </select>
        ))}
        {field("sg-fresh", t("fresh"), "fresh_time_limit", <input id="sg-fresh" name="fresh_time_limit" inputMode="numeric" value={fresh} onChange={(e) => setFresh(e.target.value)} required aria-invalid={!!errors.fresh_time_limit} aria-describedby={describedBy("fresh_time_limit", "sg-fresh-help")} />,
          t("freshHelp"))}
        {field("sg-emails", t("emails"), "early_warning_emails", <textarea id="sg-emails" name="early_warning_emails" rows={3} value={emails} onChange={(e) => setEmails(e.target.value)} aria-invalid={!!errors.early_warning_emails} aria-describedby={describedBy("early_warning_emails", "sg-emails-help")} />,
          t("emailsHelp"))}
      </section>

      <section className="card" aria-labelledby="stations-heading">
        <h2 id="stations-heading">{t("stations")}</h2>
        <StationPicker picked={picked} adding={adding} onPick={addStation} tileUrl={tileUrl} tileAttribution={tileAttribution} defaultBbox={defaultBbox} />
        <FieldErrors id="stations-errors" errors={messages.general} />
        {drafts.length === 0 ? <p className="muted">{t("noStations")}</p> : drafts.map((d, i) => (
          <fieldset key={d.station.id} className="synoptic-station" data-station={d.station.id}>
            <legend>{i + 1}. {d.station.name || t("stationFallback", { id: String(d.station.id) })}</legend>
            <div className="synoptic-station-head">
              <span className="muted small">{t("chooseWhat")}</span>
              <span>
                <button type="button" className="secondary" onClick={() => move(i, -1)} disabled={i === 0} aria-label={t("moveUp", { name: d.station.name })}>↑</button>{" "}
                <button type="button" className="secondary" onClick={() => move(i, 1)} disabled={i === drafts.length - 1} aria-label={t("moveDown", { name: d.station.name })}>↓</button>{" "}
                <button type="button" className="secondary" onClick={() => setDrafts((ds) => ds.filter((_, k) => k !== i))} aria-label={t("removeLabel", { name: d.station.name })}>{t("remove")}</button>
              </span>
            </div>
            <FieldErrors id={`st-${i}-errors`} errors={messages.byStation.get(i)} />
            {d.station.groups.length === 0 && <p className="muted small">{t("noGroups")}</p>}
            {d.station.groups.map((g) => {
              const j = d.series.findIndex((s) => s.group === g.id);
              const s = j < 0 ? null : d.series[j];
              const id = `st-${d.station.id}-g-${g.id}`;
              return (
                <div key={g.id} className="synoptic-series" data-group={g.id}>
                  <label className="synoptic-group-toggle">
                    <input type="checkbox" checked={!!s} onChange={(e) => toggleGroup(i, g.id, e.target.checked)} />
                    {groupLabel(g, groupFallback)}{g.private && <span className="muted small"> {t("privateData")}</span>}
                  </label>
                  <FieldErrors id={`${id}-errors`} errors={j < 0 ? undefined : messages.bySeries.get(`${i}:${j}`)} />
                  {s && (
                    <div className="synoptic-series-fields">
                      {([["title", t("seriesTitle"), "text"], ["subtitle", t("seriesSubtitle"), "text"], ["low", t("lowLimit"), "num"], ["high", t("highLimit"), "num"],
                        ["chartMin", t("chartMin"), "num"], ["chartMax", t("chartMax"), "num"]] as const).map(([key, label, kind]) => (
                        <div key={key}>
                          <label htmlFor={`${id}-${key}`}>{label}</label>
                          <input id={`${id}-${key}`} value={s[key]} inputMode={kind === "num" ? "decimal" : undefined} maxLength={kind === "text" ? 50 : undefined}
                            placeholder={key === "title" ? groupTitle(g, groupFallback) : undefined} onChange={(e) => setSeries(i, g.id, { [key]: e.target.value })} />
                        </div>
                      ))}
                      <Toggle checked={s.rateOfChange} onChange={(on) => setSeries(i, g.id, { rateOfChange: on })} label={t("rateOfChange")} />
                      {s.rateOfChange && (
                        <>
                          <div className="wide">
                            <label htmlFor={`${id}-thresholds`}>{t("thresholds")}</label>
                            <textarea id={`${id}-thresholds`} rows={3} value={s.thresholds} onChange={(e) => setSeries(i, g.id, { thresholds: e.target.value })} aria-describedby={`${id}-thresholds-help`} />
                            <p className="help" id={`${id}-thresholds-help`}>{t.rich("thresholdsHelp", { code: (chunks) => <code>{chunks}</code> })}</p>
                          </div>
                          <Toggle checked={s.symmetric} onChange={(on) => setSeries(i, g.id, { symmetric: on })} label={t("symmetric")} />
                        </>
                      )}
                    </div>
                  )}
                </div>
              );
            })}
          </fieldset>
        ))}
      </section>
      <div className="form-footer">
        <button type="submit" disabled={pending}>{pending ? t("saving") : initial ? t("saveChanges") : t("create")}</button>
      </div>
    </form>
  );
}

/** The version saved by someone else, beside the user's (management.md: no lost updates). */
function ConflictNote({ id, current, choices }: { id: number; current: FormValues; choices: StationChoice[] }) {
  const t = useTranslations("synopticForm");
  const stationName = (station: number) => choices.find((c) => c.id === station)?.name ?? t("stationFallback", { id: String(station) });
  const stations = JSON.parse(valueText(current, "stations") || "[]") as SynopticStationDefinition[];
  return (
    <section className="synoptic-conflict" aria-labelledby="conflict-heading">
      <h2 id="conflict-heading">{t("conflictHeading")}</h2>
      <dl className="details">
        <div><dt>{t("name")}</dt><dd>{valueText(current, "name")}</dd></div>
        <div><dt>{t("slug")}</dt><dd>{valueText(current, "slug")}</dd></div>
        <div><dt>{t("zone")}</dt><dd>{zoneChoiceLabel(valueText(current, "display_timezone"))}</dd></div>
        <div><dt>{t("freshShort")}</dt><dd>{t("freshValue", { seconds: valueText(current, "fresh_time_limit") })}</dd></div>
        <div><dt>{t("emails")}</dt><dd>{valueList(current, "early_warning_emails").join(", ") || "—"}</dd></div>
        <div><dt>{t("stations")}</dt><dd>{stations.map((s) => `${stationName(s.station)} (${s.timeseries_groups.length})`).join(", ") || "—"}</dd></div>
      </dl>
      <p>{t.rich("conflictNote", { link: (chunks) => <a href={`/manage/synoptic/${id}/`}>{chunks}</a> })}</p>
    </section>
  );
}
