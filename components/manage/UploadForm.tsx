"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { FieldMessages } from "@/components/manage/Form";
import UploadRuns from "@/components/manage/UploadRuns";
import { useApiMessages } from "@/components/manage/api-messages";
import { csrfToken } from "@/components/manage/csrf";
import { useHydrated } from "@/components/site/useHydrated";
import { useZoneWords } from "@/components/site/zone-words";
import { formatDateTime, offsetLabel, zoneChoices } from "@/lib/site/time";

/**
 * The upload page's form (management.md §2): a file or pasted text, its time zone and mode. Step 1
 * is a dry run of `POST …/data/` (nothing stored: the count, first and last timestamps, and every
 * line error the API reports, with its line number); step 2 sends the same request to store it.
 * Both go to the API itself, with the session and the CSRF token, so the page says exactly what
 * the API says; a large file shows its upload progress. Once stored, it shows the processing
 * runs that the upload queued, until they finish.
 */
export interface UploadFormProps {
  apiPath: string;
  defaultZone: string;
  /** Minutes east of UTC in which the page shows the stored records' range: the dry run's range is shown alike. */
  displayOffset: number;
  chartHref: string;
  maxBytes: number;
  /** The group's processes in the API, and in words by id. */
  processesApi: string;
  processes: Record<number, string>;
}

type Outcome =
  | { kind: "checked"; count: number; start: string | null; end: string | null; replaced: number | null; lines: string[] }
  | { kind: "stored"; count: number; start: string | null; end: string | null; at: number }
  | { kind: "refused"; errors: Record<string, string[]>; refused?: number | null; hint?: string | null };

const FIRST_LINES = 8;

const strong = (chunks: ReactNode) => <strong>{chunks}</strong>;

type UploadTranslator = ReturnType<typeof useTranslations<"manageSeriesUpload">>;

/** "2026-01-01 00:00 to 2026-01-01 00:20 (UTC+02:00)": the API's UTC range as the page shows the stored one. */
function rangeText(t: UploadTranslator, start: string, end: string, offset: number): string {
  const at = (iso: string) => formatDateTime(Date.parse(iso) / 1000, offset);
  return t("range", { start: at(start), end: at(end), zone: offsetLabel(offset) });
}

/** An instant of the API's messages ("2025-01-01T00:10:00+02:00"), written as the page writes times. */
const INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}\b/g;

function pageTimes(message: string, offset: number): string {
  return message.replace(INSTANT, (iso) => formatDateTime(Date.parse(iso) / 1000, offset));
}

/**
 * What the list of problems is: the API sends the first 10; the storage checks say how many lines
 * they refused in all (REFUSED_LINES_HEADER), the line checks stop at the tenth problem.
 */
function problemsIntro(t: UploadTranslator, shown: number, refused: number | null): string {
  if (refused !== null && refused > shown) return t("problemsFirstOf", { shown, refused });
  if (refused === null && shown >= 10) return t("problemsFirst", { shown });
  return shown === 1 ? t("problemOne") : t("problemsAll", { shown });
}

/** Which mode the refused lines call for, when the API's messages tell. */
function modeHint(t: UploadTranslator, mode: "append" | "insert" | "replace" | undefined, messages: string[]): string | null {
  // The API's messages are in English whatever the page's language.
  if (mode === "append" && messages.some((m) => m.includes("is not later than the last stored record"))) return t("hintAppend");
  if (mode === "insert" && messages.some((m) => m.includes("already exists"))) return t("hintInsert");
  return null;
}

/** Sends the upload with XMLHttpRequest (fetch reports no upload progress). */
function send(url: string, body: FormData, onProgress: (fraction: number) => void, failed: string): Promise<{ status: number; json: unknown; date: number; refused: number | null }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let json: unknown = null;
      try {
        json = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        json = null;
      }
      const date = Date.parse(xhr.getResponseHeader("Date") ?? "");
      const refused = Number(xhr.getResponseHeader("X-Enhydris-Refused-Lines") ?? "");
      resolve({ status: xhr.status, json, date: Number.isFinite(date) ? date : Date.now(), refused: refused > 0 ? refused : null });
    };
    xhr.onerror = () => reject(new Error(failed));
    xhr.send(body);
  });
}

async function firstLines(source: File | string): Promise<string[]> {
  const text = typeof source === "string" ? source.slice(0, 65536) : await source.slice(0, 65536).text();
  return text.split(/\r\n|\r|\n/).filter((l) => l.trim() !== "").slice(0, FIRST_LINES);
}

export default function UploadForm({ apiPath, defaultZone, displayOffset, chartHref, maxBytes, processesApi, processes }: UploadFormProps) {
  const t = useTranslations("manageSeriesUpload");
  const zoneWords = useZoneWords();
  const id = useId();
  const router = useRouter();
  const live = useHydrated();
  const [source, setSource] = useState<"file" | "text">("file");
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState("");
  const [zone, setZone] = useState(defaultZone);
  const [mode, setMode] = useState<"append" | "insert" | "replace">("append");
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState<null | "check" | "store">(null);
  const [progress, setProgress] = useState(0);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const translate = useApiMessages();
  /** The API's messages, field by field, in the page's language (one request for all of them). */
  const inPageLanguage = async (errors: Record<string, string[]>): Promise<Record<string, string[]>> => {
    const fields = Object.entries(errors).map(([field, messages]) => [field, [messages].flat().map(String)] as const);
    const shown = await translate(fields.flatMap(([, messages]) => messages));
    let at = 0;
    return Object.fromEntries(fields.map(([field, messages]) => [field, messages.map(() => shown[at++])]));
  };
  const status = useRef<HTMLDivElement>(null);

  // A change of what is uploaded needs a new check before it can be stored.
  const changed = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    setOutcome((o) => (o?.kind === "checked" ? null : o));
  };
  useEffect(() => {
    if (outcome) status.current?.focus();
  }, [outcome]);

  const upload = async (dryRun: boolean) => {
    const content = source === "file" ? file : text;
    if (source === "file" && file && file.size > maxBytes) {
      setOutcome({ kind: "refused", errors: { form: [t("tooLarge", { max: maxBytes })] } });
      return;
    }
    const body = new FormData();
    if (content !== null) body.append("timeseries_records", content);
    body.append("timezone", zone);
    body.append("mode", mode);
    if (comment.trim()) body.append("comment", comment.trim());
    body.append("dry_run", dryRun ? "true" : "false");
    setBusy(dryRun ? "check" : "store");
    setProgress(0);
    try {
      const answer = await send(apiPath, body, setProgress, t("connectionFailed"));
      const json = answer.json as Record<string, unknown> | null;
      if (answer.status === 200 && dryRun) {
        const r = json as { count: number; start_date: string | null; end_date: string | null; replaced?: number };
        setOutcome({ kind: "checked", count: r.count, start: r.start_date, end: r.end_date, replaced: r.replaced ?? null, lines: content === null ? [] : await firstLines(content) });
      } else if (answer.status === 204 && !dryRun) {
        const checked = outcome?.kind === "checked" ? outcome : null;
        setOutcome({ kind: "stored", count: checked?.count ?? 0, start: checked?.start ?? null, end: checked?.end ?? null, at: answer.date });
        setFile(null);
        setText("");
        router.refresh();
      } else if (answer.status === 400 && json) {
        const english = json as Record<string, string[]>;
        // The hint reads the API's English words; the page shows them in its language.
        const hint = modeHint(t, mode, english.timeseries_records ?? []);
        setOutcome({ kind: "refused", errors: await inPageLanguage(english), refused: answer.refused, hint });
      } else if (answer.status === 401) {
        setOutcome({ kind: "refused", errors: { form: [t("sessionEnded")] } });
      } else {
        const detail = typeof json?.detail === "string" ? json.detail : null;
        setOutcome({ kind: "refused", errors: detail === null ? { form: [t("serverAnswered", { status: answer.status })] } : await inPageLanguage({ form: [detail] }) });
      }
    } catch (error) {
      setOutcome({ kind: "refused", errors: { form: [(error as Error).message] } });
    } finally {
      setBusy(null);
    }
  };

  const errors = outcome?.kind === "refused" ? outcome.errors : {};
  const records = errors.timeseries_records;
  const general = [...(errors.form ?? []), ...(errors.detail ?? []), ...(errors.non_field_errors ?? [])];
  const ready = source === "file" ? file !== null : text.trim() !== "";

  return (
    <form className="manage-form upload-form" onSubmit={(e) => { e.preventDefault(); upload(true); }} data-client="" data-hydrated={live || undefined} noValidate>
      <fieldset className="field">
        <legend>{t("recordsFrom")}</legend>
        <label className="checkbox-option"><input type="radio" name="source" value="file" checked={source === "file"} onChange={() => changed(setSource)("file")} /> {t("fromFile")}</label>
        <label className="checkbox-option"><input type="radio" name="source" value="text" checked={source === "text"} onChange={() => changed(setSource)("text")} /> {t("fromText")}</label>
      </fieldset>
      {source === "file" ? (
        <div className="field">
          <label htmlFor={`${id}-file`}>{t("file")}</label>
          <input id={`${id}-file`} type="file" accept=".csv,.txt,.hts,.dat,text/csv,text/plain" onChange={(e) => changed(setFile)(e.target.files?.[0] ?? null)}
            aria-describedby={`${id}-file-help`} aria-invalid={records ? true : undefined} />
          <p className="help" id={`${id}-file-help`}>{t.rich("fileHelp", { mb: Math.floor(maxBytes / 1048576), code: (chunks) => <code>{chunks}</code> })}</p>
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`${id}-text`}>{t("records")}</label>
          <textarea id={`${id}-text`} rows={8} value={text} onChange={(e) => changed(setText)(e.target.value)} spellCheck={false} className="mono"
            placeholder="2025-01-01 00:10,12.3," aria-invalid={records ? true : undefined} />
        </div>
      )}
      <div className="form-grid">
        <div className="field">
          <label htmlFor={`${id}-zone`}>{t("zone")}</label>
          <select id={`${id}-zone`} value={zone} onChange={(e) => changed(setZone)(e.target.value)}
            aria-describedby={`${id}-zone-help${errors.timezone ? ` ${id}-zone-errors` : ""}`} aria-invalid={errors.timezone ? true : undefined}>
            {zoneChoices({ station: defaultZone, summerTime: true, words: zoneWords }).map((z) => <option key={z.value} value={z.value}>{z.label}</option>)}
          </select>
          <p className="help" id={`${id}-zone-help`}>{t("zoneHelp")}</p>
          <FieldMessages id={`${id}-zone-errors`} errors={errors.timezone} />
        </div>
        <fieldset className="field">
          <legend>{t("mode")}</legend>
          <label className="checkbox-option"><input type="radio" name="mode" value="append" checked={mode === "append"} onChange={() => changed(setMode)("append")} /> {t("modeAppend")}</label>
          <label className="checkbox-option"><input type="radio" name="mode" value="insert" checked={mode === "insert"} onChange={() => changed(setMode)("insert")} /> {t("modeInsert")}</label>
          <label className="checkbox-option"><input type="radio" name="mode" value="replace" checked={mode === "replace"} onChange={() => changed(setMode)("replace")} /> {t("modeReplace")}</label>
          <FieldMessages id={`${id}-mode-errors`} errors={errors.mode} />
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-comment`}>{t("comment")}</label>
          <input id={`${id}-comment`} value={comment} onChange={(e) => setComment(e.target.value)} maxLength={1000} aria-describedby={`${id}-comment-help`} />
          <p className="help" id={`${id}-comment-help`}>{t("commentHelp")}</p>
          <FieldMessages id={`${id}-comment-errors`} errors={errors.comment} />
        </div>
      </div>

      <div className="form-actions">
        <button type="submit" disabled={busy !== null || !ready}>{busy === "check" ? t("checking") : t("check")}</button>
        {outcome?.kind === "checked" && outcome.count > 0 && (
          <button type="button" onClick={() => upload(false)} disabled={busy !== null}>{busy === "store" ? t("storing") : t("store", { count: outcome.count })}</button>
        )}
      </div>
      {busy && (
        <div className="upload-progress">
          <progress max={1} value={progress} aria-label={t("progress")} />
          <span className="small muted">{progress < 1 ? t("sending", { percent: Math.round(progress * 100) }) : busy === "check" ? t("checkingRecords") : t("storingRecords")}</span>
        </div>
      )}

      <div ref={status} tabIndex={-1} className="upload-outcome" aria-live="polite">
        {outcome?.kind === "refused" && (
          <div className="form-errors" role="alert">
            {general.map((m) => <p key={m}>{m}</p>)}
            {records && outcome?.kind === "refused" && (
              <>
                <p>
                  {t("nothingStored")} {problemsIntro(t, records.length, outcome.refused ?? null)}
                  {records.some((m) => m.search(INSTANT) >= 0) ? ` ${t("timesIn", { zone: offsetLabel(displayOffset) })}` : ""}:
                </p>
                {/* Focusable, as the first lines below: a long list scrolls in its box, and keyboard users scroll it too. */}
                <ul className="line-errors" tabIndex={0} aria-label={t("problemsByLine")}>{records.map((m, i) => <li key={i}>{pageTimes(m, displayOffset)}</li>)}</ul>
                {outcome.hint && <p className="mode-hint">{outcome.hint}</p>}
              </>
            )}
            {!general.length && !records && <p>{t("correctFields")}</p>}
          </div>
        )}
        {outcome?.kind === "checked" && (
          <div className="message" role="status">
            {outcome.count === 0 ? <p>{t("noRecordsInIt")}</p> : (
              <>
                <p>{outcome.start && outcome.end
                  ? t.rich("checkedRange", { count: outcome.count, range: rangeText(t, outcome.start, outcome.end, displayOffset), strong })
                  : t.rich("checked", { count: outcome.count, strong })}. {outcome.replaced !== null && <> {t("replaces", { count: outcome.replaced })}</>} {t("notStoredYet")}</p>
                <p className="small">{t("firstLines")}</p>
                <pre className="first-lines" tabIndex={0}>{outcome.lines.join("\n")}</pre>
              </>
            )}
          </div>
        )}
        {outcome?.kind === "stored" && (
          <div className="message success" role="status">
            <p>{outcome.start && outcome.end
              ? t.rich("storedRange", { count: outcome.count, range: rangeText(t, outcome.start, outcome.end, displayOffset), strong })
              : t.rich("stored", { count: outcome.count, strong })}</p>
            <p><Link href={chartHref}>{t("seeChart")}</Link></p>
            {Object.keys(processes).length > 0 && <UploadRuns processesApi={processesApi} descriptions={processes} storedAt={outcome.at} />}
          </div>
        )}
      </div>
    </form>
  );
}
