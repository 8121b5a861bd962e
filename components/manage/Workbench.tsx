"use client";

import { useLocale, useTranslations } from "next-intl";
import { memo, useCallback, useEffect, useMemo, useState, type FormEvent } from "react";
import { useApiMessages } from "@/components/manage/api-messages";
import ComparePicker, { unitAxes, useOverlays, type Compared } from "@/components/chart/Compare";
import { RangeFields } from "@/components/chart/drag-range";
import { timeTicks } from "@/components/chart/ticks";
import { csrfToken } from "@/components/manage/csrf";
import WorkbenchChart, { type DrawnRow } from "@/components/manage/WorkbenchChart";
import { loadRecords } from "@/components/manage/records-loader";
import { epoch, isoInstant, RecordColumns, workbenchRange, workbenchRecordsUrl, type Rec } from "@/components/manage/workbench-requests";
import { decimalIn, decimalSeparator } from "@/lib/i18n/format";
import type { CorrectionJson } from "@/lib/series";
import { formatDateTime, formatLocalInput, offsetLabel, parseInstant } from "@/lib/site/time";

/**
 * The quality-control workbench of a series (corrections.md §3): the records of a range on a
 * chart (flagged ones marked) and in a table; a selection made by dragging on the chart or by
 * clicking (and shift-clicking) rows; the operations of the API on it, each previewed by a dry
 * run before it is applied; edits of single records; other series overlaid; the history of
 * corrections with their revert. Every change goes through the series' API with the session.
 */
export interface WorkbenchProps {
  apiPath: string;
  offsetMinutes: number;
  unit: string;
  variable: string;
  seriesId: number;
  first: number | null;
  last: number | null;
  /** The range and the compared series the address asked for (`?start=…&end=…&compare=…`), already checked by the page. */
  initialRange?: { start: number; end: number } | null;
  initialCompared?: Compared[];
}

/** The page's address with the range (UTC, to the second) and the compared series' ids in its query. */
function workbenchQuery(href: string, range: { start: number; end: number }, compared: Compared[]): string {
  const url = new URL(href);
  url.searchParams.set("start", iso(range.start));
  url.searchParams.set("end", iso(range.end));
  if (compared.length) url.searchParams.set("compare", compared.map((c) => c.seriesId).join(","));
  else url.searchParams.delete("compare");
  return url.pathname + url.search + url.hash;
}

interface State {
  value: number | null;
  flags: string;
}

interface Preview {
  operation: string;
  changed: number;
  rows: { t: number; before: State | null; after: State | null }[];
}

/** A correction as the history's API gives it. */
type Correction = CorrectionJson;

const OPERATIONS = ["delete", "offset", "scale", "set", "interpolate", "flag", "unflag"] as const;
type Operation = (typeof OPERATIONS)[number];
/** The kinds of corrections the history lists (the API's codes), each with its words in the catalogue. */
const KINDS = new Set(["upload", "replace", "delete", "edit", "transform", "revert"]);
/** Rows of the records table per page: about three screens; each row costs its share of the first render. */
const PAGE_ROWS = 50;
/**
 * Above this many records the chart draws min–max bands over half as many equal intervals instead
 * of every record: about one per two pixels of a wide chart, and a year drawn at once (each drawn
 * point costs the chart's SVG work).
 */
const DRAWN_POINTS = 1200;
const DAY = 86400;

const iso = isoInstant;
/** The API's refusal as one text: its messages (each named by its field), in the page's language. */
async function answerText(response: Response, serverAnswered: (status: number) => string, inPageLanguage: (messages: string[]) => Promise<string[]>): Promise<string> {
  let messages: string[];
  try {
    const json = (await response.json()) as Record<string, unknown>;
    messages = Object.entries(json).flatMap(([k, v]) => [v].flat().map((m) => (k === "detail" || k === "non_field_errors" ? "" : `${k}: `) + String(m)));
  } catch {
    return serverAnswered(response.status);
  }
  return (await inPageLanguage(messages)).join(" ");
}

function send(url: string, method: string, body?: unknown): Promise<Response> {
  return fetch(url, {
    method, credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRFToken": csrfToken(), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

type Editing = { t: number; value: string; flags: string };

/**
 * The rows of the records table. Memoized: the compared series, the history and every keystroke
 * in the operation's fields re-render the workbench, and the page's rows are most of its render.
 */
const RecordRows = memo(function RecordRows({ rows, selection, editing, busy, anchor, offsetMinutes, onSelect, onAnchor, onEdit }: {
  rows: Rec[];
  selection: { from: number; to: number } | null;
  editing: Editing | null;
  busy: boolean;
  anchor: number | null;
  offsetMinutes: number;
  onSelect: (from: number, to: number) => void;
  onAnchor: (t: number) => void;
  onEdit: (editing: Editing | null) => void;
}) {
  const t = useTranslations("manageSeriesWorkbench");
  const locale = useLocale();
  const shownValue = (value: string | number) => decimalIn(locale, value);
  return (
    <tbody>
      {rows.map((r) => {
        const inSelection = selection !== null && r.t >= selection.from && r.t <= selection.to;
        return editing?.t === r.t ? (
          // A row of its own (its key): were React to reuse the Edit button's node for Save, the
          // click that opened the row would go on to submit it, as a submit button's click.
          <tr key={`editing-${r.t}`} className="editing">
            <td>{formatDateTime(r.t, offsetMinutes)}</td>
            {/* The value has the focus as the row opens (from the keyboard too); Escape closes it unsaved. */}
            <td><input aria-label={t("value")} inputMode="decimal" value={editing.value} onChange={(e) => onEdit({ ...editing, value: e.target.value })} size={8}
              autoFocus onKeyDown={(e) => { if (e.key === "Escape") onEdit(null); }} /></td>
            <td><input aria-label={t("flags")} value={editing.flags} onChange={(e) => onEdit({ ...editing, flags: e.target.value })} size={14}
              onKeyDown={(e) => { if (e.key === "Escape") onEdit(null); }} /></td>
            <td><button type="submit" className="button small" disabled={busy}>{t("save")}</button> <button type="button" className="button secondary small" onClick={() => onEdit(null)}>{t("cancel")}</button></td>
          </tr>
        ) : (
          <tr key={r.t} className={inSelection ? "selected" : undefined} aria-selected={inSelection}
            onClick={(e) => {
              if (e.shiftKey && anchor !== null) onSelect(anchor, r.t);
              else {
                onAnchor(r.t);
                onSelect(r.t, r.t);
              }
            }}>
            <td>{formatDateTime(r.t, offsetMinutes)}</td>
            <td className="number">{shownValue(r.text)}</td>
            <td>{r.flags}</td>
            <td><button type="button" className="button secondary small" onClick={(e) => { e.stopPropagation(); e.preventDefault(); onEdit({ t: r.t, value: shownValue(r.text), flags: r.flags }); }}>{t("edit")}</button></td>
          </tr>
        );
      })}
    </tbody>
  );
});

export default function Workbench({ apiPath, offsetMinutes, unit, variable, seriesId, first, last, initialRange, initialCompared }: WorkbenchProps) {
  const t = useTranslations("manageSeriesWorkbench");
  const locale = useLocale();
  // Values as the page's language writes them ("12,5" in Greek); what is typed back may use either separator.
  const shownValue = (value: string | number) => decimalIn(locale, value);
  const typed = (text: string) => (decimalSeparator(locale) === "," ? text.replace(",", ".") : text);
  const serverAnswered = useCallback((status: number) => t("serverAnswered", { status }), [t]);
  const inPageLanguage = useApiMessages();
  const zone = offsetLabel(offsetMinutes);
  // The address's range, or the last 30 days of the series.
  const [range, setRange] = useState<{ start: number; end: number }>(() => {
    const now = Math.floor(Date.now() / 1000);
    return workbenchRange(initialRange, first, last) ?? { start: now - 30 * DAY, end: now };
  });
  const [records, setRecords] = useState<RecordColumns | null>(null);
  const [loadError, setLoadError] = useState("");
  const [reload, setReload] = useState(0);
  const [selection, setSelection] = useState<{ from: number; to: number } | null>(null);
  const [operation, setOperation] = useState<Operation>("offset");
  const [amount, setAmount] = useState("");
  const [flags, setFlags] = useState("");
  const [comment, setComment] = useState("");
  const [preview, setPreview] = useState<Preview | null>(null);
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [page, setPage] = useState(0);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [history, setHistory] = useState<Correction[] | null>(null);
  const [compared, setCompared] = useState<Compared[]>(initialCompared ?? []);
  const overlays = useOverlays(compared, range.start, range.end, offsetMinutes);
  // The address follows the range and the compared series: a view to come back to, or to send to a colleague.
  useEffect(() => {
    window.history.replaceState(window.history.state, "", workbenchQuery(window.location.href, range, compared));
  }, [range, compared]);

  useEffect(() => {
    const controller = new AbortController();
    loadRecords(workbenchRecordsUrl(apiPath, range), controller.signal)
      .then(async (loaded) => {
        if ("refused" in loaded) throw new Error(await answerText(loaded.refused, serverAnswered, inPageLanguage));
        setRecords(loaded.records);
        setLoadError("");
      })
      .catch((e: Error) => e.name !== "AbortError" && setLoadError(t("loadFailed", { error: e.message })));
    return () => controller.abort();
  }, [apiPath, range, reload, serverAnswered, inPageLanguage, t]);

  const loadHistory = useCallback(() => {
    fetch(`${apiPath}corrections/?page_size=20`, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(async (response) => setHistory(response.ok ? ((await response.json()) as { results: Correction[] }).results : []))
      .catch(() => setHistory([]));
  }, [apiPath]);
  useEffect(loadHistory, [loadHistory, reload]);

  const recs = records ?? RecordColumns.empty;
  // The records listed: the selection's, else the range's (indexes [from, to) into the columns).
  const [listFrom, listTo] = useMemo(() => (selection ? recs.between(selection.from, selection.to) : [0, recs.length]), [recs, selection]);
  const selectedCount = selection ? listTo - listFrom : 0;

  // What the chart draws: every record, or min–max bands with the mean over equal intervals.
  const drawn = useMemo((): { rows: DrawnRow[]; maxStep: number } => {
    const { t: times, v: values } = recs;
    if (recs.length <= DRAWN_POINTS) return { rows: Array.from(times, (t, i) => ({ t, mean: Number.isNaN(values[i]) ? null : values[i], band: null })), maxStep: Infinity };
    const count = DRAWN_POINTS / 2;
    const width = (range.end - range.start) / count;
    const sum = new Float64Array(count);
    const n = new Uint32Array(count);
    const lo = new Float64Array(count).fill(Infinity);
    const hi = new Float64Array(count).fill(-Infinity);
    for (let i = 0; i < recs.length; i++) {
      const v = values[i];
      if (Number.isNaN(v)) continue;
      const k = Math.min(count - 1, Math.max(0, Math.floor((times[i] - range.start) / width)));
      sum[k] += v;
      n[k]++;
      if (v < lo[k]) lo[k] = v;
      if (v > hi[k]) hi[k] = v;
    }
    const rows: DrawnRow[] = [];
    for (let k = 0; k < count; k++) {
      if (n[k]) rows.push({ t: range.start + (k + 0.5) * width, mean: sum[k] / n[k], band: [lo[k], hi[k]] });
    }
    // An empty interval between two drawn ones is a gap in the data: the line and band break there.
    return { rows, maxStep: width * 1.5 };
  }, [recs, range]);
  const flagged = useMemo(() => {
    const marks: { t: number; v: number; flags: string }[] = [];
    for (const i of recs.flagged) {
      if (marks.length === 2000) break;
      const r = recs.at(i);
      if (r.v !== null) marks.push({ t: r.t, v: r.v, flags: r.flags });
    }
    return marks;
  }, [recs]);
  const after = useMemo(() => (preview ? preview.rows.filter((r) => r.after?.value !== null && r.after !== null).map((r) => ({ t: r.t, v: r.after!.value })) : []), [preview]);
  const axes = useMemo(() => unitAxes(unit, overlays), [unit, overlays]);
  const axis = useMemo(() => timeTicks(range.start, range.end, offsetMinutes), [range, offsetMinutes]);

  const select = useCallback((from: number, to: number) => {
    setSelection({ from: Math.min(from, to), to: Math.max(from, to) });
    setPreview(null);
    setPage(0);
  }, []);
  const banded = recs.length > DRAWN_POINTS;
  const chartText = useMemo(() => ({
    label: t("chartLabel", { variable, start: formatDateTime(range.start, offsetMinutes), end: formatDateTime(range.end, offsetMinutes), zone }),
    timeLabel: t("timeAxis", { zone }),
    valueLabel: unit ? `${variable} (${unit})` : variable,
    lineName: banded ? t("mean") : t("value"),
    minMax: t("minMax"),
    after: t("after"),
    flaggedWith: (flags: string) => t("flaggedWith", { flags }),
    formatValue: (v: number) => decimalIn(locale, v),
    formatTime: (time: number) => `${formatDateTime(time, offsetMinutes)} (${zone})`,
  }), [t, locale, variable, unit, range, offsetMinutes, zone, banded]);

  const body = () => {
    const b: Record<string, unknown> = { start_date: iso(selection!.from), end_date: iso(selection!.to), operation };
    if (["offset", "scale", "set"].includes(operation)) b.amount = operation === "set" && amount.trim() === "" ? null : Number(typed(amount));
    if (operation === "flag" || operation === "unflag") b.flags = flags;
    if (comment.trim()) b.comment = comment.trim();
    return b;
  };

  const run = async (dryRun: boolean) => {
    if (!selection) return;
    setBusy(true);
    setMessage(null);
    try {
      if (operation === "delete") {
        const query = new URLSearchParams({ start_date: iso(selection.from), end_date: iso(selection.to), dry_run: String(dryRun) });
        if (comment.trim()) query.set("comment", comment.trim());
        const response = await send(`${apiPath}data/?${query}`, "DELETE");
        if (!response.ok) throw new Error(await answerText(response, serverAnswered, inPageLanguage));
        const answer = (await response.json()) as { deleted: number };
        if (dryRun) {
          setPreview({ operation, changed: answer.deleted, rows: recs.slice(listFrom, listTo).map((r) => ({ t: r.t, before: { value: r.v, flags: r.flags }, after: null })) });
        } else applied(t("deleted", { count: answer.deleted }));
      } else {
        const response = await send(`${apiPath}data/transform/`, "POST", { ...body(), dry_run: dryRun });
        if (!response.ok) throw new Error(await answerText(response, serverAnswered, inPageLanguage));
        const answer = (await response.json()) as { changed: number; records?: { timestamp: string; before: State | null; after: State | null }[] };
        if (dryRun) setPreview({ operation, changed: answer.changed, rows: (answer.records ?? []).map((r) => ({ t: epoch(r.timestamp), before: r.before, after: r.after })) });
        else applied(t("changed", { count: answer.changed }));
      }
    } catch (e) {
      setMessage({ kind: "error", text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };

  function applied(text: string) {
    setPreview(null);
    setComment("");
    setMessage({ kind: "success", text });
    setReload((n) => n + 1);
  }

  const saveEdit = async (e: FormEvent) => {
    e.preventDefault();
    if (!editing) return;
    const record = recs.find(editing.t);
    const item: Record<string, unknown> = { timestamp: iso(editing.t) };
    const value = typed(editing.value);
    // A typo ("18,5" on an English page, "2O.1") is refused here: sent as JSON, NaN would be null, an empty value.
    if (value.trim() !== "" && !Number.isFinite(Number(value))) return setMessage({ kind: "error", text: t("notANumber", { text: editing.value.trim() }) });
    if (value !== (record?.text ?? "")) item.value = value.trim() === "" ? null : Number(value);
    if (editing.flags !== (record?.flags ?? "")) item.flags = editing.flags;
    if (Object.keys(item).length === 1) return setEditing(null);
    setBusy(true);
    try {
      const response = await send(`${apiPath}data/`, "PATCH", { records: [item], ...(comment.trim() ? { comment: comment.trim() } : {}) });
      if (!response.ok) throw new Error(await answerText(response, serverAnswered, inPageLanguage));
      setEditing(null);
      applied(t("changedRecord", { time: formatDateTime(editing.t, offsetMinutes) }));
    } catch (err) {
      setMessage({ kind: "error", text: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const revert = async (c: Correction) => {
    setBusy(true);
    setMessage(null);
    try {
      const response = await send(`${apiPath}corrections/${c.id}/revert/`, "POST", { comment: t("revertComment", { id: c.id }) });
      if (!response.ok) throw new Error(await answerText(response, serverAnswered, inPageLanguage));
      applied(t("reverted", { id: c.id }));
    } catch (e) {
      setMessage({ kind: "error", text: (e as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const [fromText, setFromText] = useState(() => formatLocalInput(range.start, offsetMinutes));
  const [toText, setToText] = useState(() => formatLocalInput(range.end, offsetMinutes));
  const showRange = (start: number, end: number) => {
    setRange({ start: Math.floor(start), end: Math.ceil(end) });
    setFromText(formatLocalInput(start, offsetMinutes));
    setToText(formatLocalInput(end, offsetMinutes));
    setSelection(null);
    setPreview(null);
    setPage(0);
  };
  const applyRange = (e: FormEvent) => {
    e.preventDefault();
    const a = parseInstant(fromText, offsetMinutes);
    const b = parseInstant(toText, offsetMinutes);
    if (a !== null && b !== null && a < b) showRange(a, b);
    else setMessage({ kind: "error", text: t("badRange") });
  };
  const span = range.end - range.start;
  const stateText = (s: State | null) => (s === null ? t("none") : `${s.value === null ? t("empty") : shownValue(s.value)}${s.flags ? ` [${s.flags}]` : ""}`);

  const listed = listTo - listFrom;
  const pages = Math.max(1, Math.ceil(listed / PAGE_ROWS));
  const shown = useMemo(() => recs.slice(listFrom + page * PAGE_ROWS, Math.min(listTo, listFrom + (page + 1) * PAGE_ROWS)), [recs, listFrom, listTo, page]);
  const [anchor, setAnchor] = useState<number | null>(null);
  const needsAmount = operation === "offset" || operation === "scale" || operation === "set";
  const needsFlags = operation === "flag" || operation === "unflag";
  // "set" may leave the amount empty (the records become empty); any amount typed must be a number.
  const amountReady = (operation === "set" && amount.trim() === "") || (amount.trim() !== "" && Number.isFinite(Number(typed(amount))));
  const ready = selection !== null && (!needsAmount || amountReady) && (!needsFlags || flags.trim() !== "");

  return (
    <div className="workbench">
      <form className="chart-range-form" onSubmit={applyRange}>
        <RangeFields idPrefix="wb" zone={zone} from={fromText} to={toText} onFrom={setFromText} onTo={setToText} />
        <button type="submit" className="button">{t("showRange")}</button>
        <span className="chart-toolbar" role="group" aria-label={t("chartRange")}>
          <button type="button" className="button secondary" onClick={() => showRange(range.start - span / 2, range.end - span / 2)}>{t("earlier")}</button>
          <button type="button" className="button secondary" onClick={() => showRange(range.start + span / 4, range.end - span / 4)}>{t("zoomIn")}</button>
          <button type="button" className="button secondary" onClick={() => showRange(range.start - span / 2, range.end + span / 2)}>{t("zoomOut")}</button>
          <button type="button" className="button secondary" onClick={() => showRange(range.start + span / 2, range.end + span / 2)}>{t("later")}</button>
          <button type="button" className="button secondary" disabled={!selection} onClick={() => selection && showRange(selection.from - 1, selection.to + 1)}>{t("zoomSelection")}</button>
        </span>
      </form>

      <ComparePicker compared={compared} onChange={setCompared} excludeSeriesId={seriesId} />

      {loadError && <p className="message error" role="alert">{loadError}</p>}
      <div className="chart-box workbench-chart" data-state={records === null ? "loading" : "ready"} aria-busy={records === null}>
        <WorkbenchChart rows={drawn.rows} maxStep={drawn.maxStep} flagged={flagged} after={after} overlays={overlays} axes={axes}
          start={range.start} end={range.end} timeAxis={axis} offsetMinutes={offsetMinutes} selection={selection} onSelect={select} text={chartText} />
        {records === null && <div className="chart-loading">{t("loadingRecords")}</div>}
      </div>
      <div className="chart-legend" aria-hidden="true">
        <span className="legend-mean">{banded ? t("legendMean") : t("value")}</span>
        <span className="legend-flagged">{t("legendFlagged")}</span>
        {preview && <span className="legend-after">{t("legendAfter")}</span>}
        <span className="muted">{t("dragHelp")}</span>
      </div>

      <section className="card workbench-ops" aria-labelledby="wb-ops">
        <h2 id="wb-ops">{t("opsHeading")}</h2>
        <p className="muted" data-testid="selection" aria-live="polite">
          {selection
            ? <>{t("selected", { from: formatDateTime(selection.from, offsetMinutes), to: formatDateTime(selection.to, offsetMinutes), zone, count: selectedCount })}{" "}
              <button type="button" className="button secondary small" onClick={() => { setSelection(null); setPreview(null); }}>{t("clear")}</button></>
            : <>{t("nothingSelected")}{" "}
              {/* Without a pointer: the range typed in From and To, shown, is selected whole. */}
              <button type="button" className="button secondary small" onClick={() => select(range.start, range.end)}>{t("selectShown")}</button></>}
        </p>
        <form className="form-grid" onSubmit={(e) => { e.preventDefault(); run(true); }}>
          <div className="field">
            <label htmlFor="wb-op">{t("operation")}</label>
            <select id="wb-op" value={operation} onChange={(e) => { setOperation(e.target.value as Operation); setPreview(null); }}>
              {OPERATIONS.map((o) => <option key={o} value={o}>{t(`operations.${o}`)}</option>)}
            </select>
          </div>
          {needsAmount && (
            <div className="field">
              <label htmlFor="wb-amount">{operation === "set" ? t("amountSet") : t("amount")}</label>
              <input id="wb-amount" inputMode="decimal" value={amount} onChange={(e) => { setAmount(e.target.value); setPreview(null); }} />
            </div>
          )}
          {needsFlags && (
            <div className="field">
              <label htmlFor="wb-flags">{t("flags")}</label>
              <input id="wb-flags" value={flags} onChange={(e) => { setFlags(e.target.value); setPreview(null); }} placeholder="SUSPECT" />
            </div>
          )}
          <div className="field">
            <label htmlFor="wb-comment">{t("comment")}</label>
            <input id="wb-comment" value={comment} onChange={(e) => setComment(e.target.value)} maxLength={1000} placeholder={t("commentPlaceholder")} />
          </div>
          <div className="form-actions">
            <button type="submit" className="button secondary" disabled={busy || !ready}>{t("preview")}</button>
            {preview && preview.changed > 0 && <button type="button" className="button" disabled={busy} onClick={() => run(false)}>{t("apply", { count: preview.changed })}</button>}
          </div>
        </form>
        {preview && (
          <div className="message" role="status" data-testid="preview">
            <p><strong>{preview.changed === 0 ? t("noChange") : t("wouldChange", { count: preview.changed })}</strong> {t("untilApply")}</p>
            {preview.rows.length > 0 && (
              <table className="data-table small">
                <thead><tr><th>{t("timeAxis", { zone })}</th><th>{t("before")}</th><th>{t("after")}</th></tr></thead>
                <tbody>
                  {preview.rows.slice(0, 10).map((r) => (
                    <tr key={r.t}><td>{formatDateTime(r.t, offsetMinutes)}</td><td>{stateText(r.before)}</td><td>{stateText(r.after)}</td></tr>
                  ))}
                </tbody>
              </table>
            )}
            {preview.rows.length > 10 && <p className="small muted">{t("more", { count: preview.rows.length - 10 })}</p>}
          </div>
        )}
        {message && <p className={`message ${message.kind}`} role={message.kind === "error" ? "alert" : "status"}>{message.text}</p>}
      </section>

      <section className="card" aria-labelledby="wb-records">
        <h2 id="wb-records">{selection ? t("recordsOfSelection", { count: listed }) : t("recordsOfRange", { count: listed })}</h2>
        <form onSubmit={saveEdit}>
          <table className="data-table workbench-table">
            <thead><tr><th>{t("timeAxis", { zone })}</th><th>{t("valueUnit", { unit })}</th><th>{t("flags")}</th><th><span className="visually-hidden">{t("edit")}</span></th></tr></thead>
            <RecordRows rows={shown} selection={selection} editing={editing} busy={busy} anchor={anchor} offsetMinutes={offsetMinutes}
              onSelect={select} onAnchor={setAnchor} onEdit={setEditing} />
          </table>
        </form>
        {listed === 0 && <p className="muted">{records === null ? t("loading") : t("noRecordsHere")}</p>}
        {pages > 1 && (
          <p className="pager">
            <button type="button" className="button secondary small" disabled={page === 0} onClick={() => setPage(page - 1)}>{t("previous")}</button>
            {" "}{t("pageOf", { page: page + 1, pages })}{" "}
            <button type="button" className="button secondary small" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>{t("next")}</button>
          </p>
        )}
      </section>

      <section className="card" aria-labelledby="wb-history">
        <h2 id="wb-history">{t("historyHeading")}</h2>
        {history === null ? <p className="muted">{t("loading")}</p> : history.length === 0 ? <p className="muted">{t("noCorrections")}</p> : (
          <table className="data-table workbench-history">
            <thead><tr><th>#</th><th>{t("when")}</th><th>{t("who")}</th><th>{t("what")}</th><th>{t("records")}</th><th>{t("rangeZone", { zone })}</th><th>{t("comment")}</th><th /></tr></thead>
            <tbody>
              {history.map((c) => (
                <tr key={c.id} data-correction={c.id}>
                  <td>{c.id}</td>
                  <td>{c.created.slice(0, 16).replace("T", " ")}</td>
                  <td>{c.user ?? "—"}</td>
                  <td>{KINDS.has(c.kind) ? t(`kinds.${c.kind as CorrectionJson["kind"]}`) : c.kind}{c.detail ? ` (${c.detail})` : ""}{c.reverts !== null ? ` ${t("ofCorrection", { id: c.reverts })}` : ""}</td>
                  <td>{c.records_before} → {c.records_after}</td>
                  <td>{formatDateTime(epoch(c.start_date), offsetMinutes)} – {formatDateTime(epoch(c.end_date), offsetMinutes)}</td>
                  <td>{c.comment}</td>
                  <td>{c.reverted_by !== null ? <span className="muted small">{t("revertedBy", { id: c.reverted_by })}</span>
                    : <button type="button" className="button secondary small" disabled={busy} onClick={() => revert(c)}>{t("revert")}</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
