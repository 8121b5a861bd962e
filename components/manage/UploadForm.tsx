"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import { FieldMessages } from "@/components/manage/Form";
import UploadRuns from "@/components/manage/UploadRuns";
import { csrfToken } from "@/components/manage/csrf";
import { useHydrated } from "@/components/site/useHydrated";
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
  | { kind: "refused"; errors: Record<string, string[]>; refused?: number | null; mode?: "append" | "insert" | "replace" };

const FIRST_LINES = 8;

/** "2026-01-01 00:00 to 2026-01-01 00:20 (UTC+02:00)": the API's UTC range as the page shows the stored one. */
function rangeText(start: string, end: string, offset: number): string {
  const at = (iso: string) => formatDateTime(Date.parse(iso) / 1000, offset);
  return `${at(start)} to ${at(end)} (${offsetLabel(offset)})`;
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
function problemsIntro(shown: number, refused: number | null): string {
  const n = (k: number) => k.toLocaleString("en-US");
  if (refused !== null && refused > shown) return `The first ${n(shown)} of ${n(refused)} problems`;
  if (refused === null && shown >= 10) return `The first ${n(shown)} problems (the check stops at the tenth; there may be more)`;
  return shown === 1 ? "The problem" : `The ${n(shown)} problems`;
}

/** Which mode the refused lines call for, when the API's messages tell. */
function modeHint(mode: "append" | "insert" | "replace" | undefined, messages: string[]): string | null {
  if (mode === "append" && messages.some((m) => m.includes("is not later than the last stored record"))) {
    return "Append adds only records later than the last stored one. To add records before it or between stored records, choose “insert” (a record at a time that is already stored is refused either way).";
  }
  if (mode === "insert" && messages.some((m) => m.includes("already exists"))) {
    return "Insert adds records only at times that are not stored yet: stored records are never overwritten. Leave these lines out (they are stored already) and upload the rest, or choose “replace” to replace the stored records of the upload’s period.";
  }
  return null;
}

/** Sends the upload with XMLHttpRequest (fetch reports no upload progress). */
function send(url: string, body: FormData, onProgress: (fraction: number) => void): Promise<{ status: number; json: unknown; date: number; refused: number | null }> {
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
    xhr.onerror = () => reject(new Error("The connection failed."));
    xhr.send(body);
  });
}

async function firstLines(source: File | string): Promise<string[]> {
  const text = typeof source === "string" ? source.slice(0, 65536) : await source.slice(0, 65536).text();
  return text.split(/\r\n|\r|\n/).filter((l) => l.trim() !== "").slice(0, FIRST_LINES);
}

export default function UploadForm({ apiPath, defaultZone, displayOffset, chartHref, maxBytes, processesApi, processes }: UploadFormProps) {
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
      setOutcome({ kind: "refused", errors: { form: [`Request body too large; the limit is ${maxBytes} bytes.`] } });
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
      const answer = await send(apiPath, body, setProgress);
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
        setOutcome({ kind: "refused", errors: json as Record<string, string[]>, refused: answer.refused, mode });
      } else {
        const detail = typeof json?.detail === "string" ? json.detail : `The server answered ${answer.status}.`;
        setOutcome({ kind: "refused", errors: { form: [answer.status === 401 ? "Your session has ended. Log in again." : detail] } });
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
        <legend>Records from</legend>
        <label className="checkbox-option"><input type="radio" name="source" value="file" checked={source === "file"} onChange={() => changed(setSource)("file")} /> a file</label>
        <label className="checkbox-option"><input type="radio" name="source" value="text" checked={source === "text"} onChange={() => changed(setSource)("text")} /> pasted text</label>
      </fieldset>
      {source === "file" ? (
        <div className="field">
          <label htmlFor={`${id}-file`}>File</label>
          <input id={`${id}-file`} type="file" accept=".csv,.txt,.hts,.dat,text/csv,text/plain" onChange={(e) => changed(setFile)(e.target.files?.[0] ?? null)}
            aria-describedby={`${id}-file-help`} aria-invalid={records ? true : undefined} />
          <p className="help" id={`${id}-file-help`}>CSV record lines (<code>2025-01-01 00:10,12.3,</code>) or an HTS file, up to {Math.floor(maxBytes / 1048576)} MB.</p>
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`${id}-text`}>Records</label>
          <textarea id={`${id}-text`} rows={8} value={text} onChange={(e) => changed(setText)(e.target.value)} spellCheck={false} className="mono"
            placeholder="2025-01-01 00:10,12.3," aria-invalid={records ? true : undefined} />
        </div>
      )}
      <div className="form-grid">
        <div className="field">
          <label htmlFor={`${id}-zone`}>Time zone of the timestamps</label>
          <select id={`${id}-zone`} value={zone} onChange={(e) => changed(setZone)(e.target.value)}
            aria-describedby={`${id}-zone-help${errors.timezone ? ` ${id}-zone-errors` : ""}`} aria-invalid={errors.timezone ? true : undefined}>
            {zoneChoices({ station: defaultZone, summerTime: true }).map((z) => <option key={z.value} value={z.value}>{z.label}</option>)}
          </select>
          <p className="help" id={`${id}-zone-help`}>Of timestamps without an offset (an HTS file&apos;s own Timezone line takes precedence).</p>
          <FieldMessages id={`${id}-zone-errors`} errors={errors.timezone} />
        </div>
        <fieldset className="field">
          <legend>Mode</legend>
          <label className="checkbox-option"><input type="radio" name="mode" value="append" checked={mode === "append"} onChange={() => changed(setMode)("append")} /> append (after the last stored record)</label>
          <label className="checkbox-option"><input type="radio" name="mode" value="insert" checked={mode === "insert"} onChange={() => changed(setMode)("insert")} /> insert (between stored records)</label>
          <label className="checkbox-option"><input type="radio" name="mode" value="replace" checked={mode === "replace"} onChange={() => changed(setMode)("replace")} /> replace (the stored records from its first to its last timestamp)</label>
          <FieldMessages id={`${id}-mode-errors`} errors={errors.mode} />
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-comment`}>Comment (optional)</label>
          <input id={`${id}-comment`} value={comment} onChange={(e) => setComment(e.target.value)} maxLength={1000} aria-describedby={`${id}-comment-help`} />
          <p className="help" id={`${id}-comment-help`}>Kept in the history of corrections.</p>
          <FieldMessages id={`${id}-comment-errors`} errors={errors.comment} />
        </div>
      </div>

      <div className="form-actions">
        <button type="submit" disabled={busy !== null || !ready}>{busy === "check" ? "Checking…" : "Check (nothing is stored)"}</button>
        {outcome?.kind === "checked" && outcome.count > 0 && (
          <button type="button" onClick={() => upload(false)} disabled={busy !== null}>{busy === "store" ? "Storing…" : `Store ${outcome.count.toLocaleString("en-US")} records`}</button>
        )}
      </div>
      {busy && (
        <div className="upload-progress">
          <progress max={1} value={progress} aria-label="Upload progress" />
          <span className="small muted">{progress < 1 ? `Sending… ${Math.round(progress * 100)}%` : busy === "check" ? "Checking the records…" : "Storing the records…"}</span>
        </div>
      )}

      <div ref={status} tabIndex={-1} className="upload-outcome" aria-live="polite">
        {outcome?.kind === "refused" && (
          <div className="form-errors" role="alert">
            {general.map((m) => <p key={m}>{m}</p>)}
            {records && outcome?.kind === "refused" && (
              <>
                <p>
                  Nothing has been stored. {problemsIntro(records.length, outcome.refused ?? null)}
                  {records.some((m) => m.search(INSTANT) >= 0) ? ` (times in ${offsetLabel(displayOffset)})` : ""}:
                </p>
                {/* Focusable, as the first lines below: a long list scrolls in its box, and keyboard users scroll it too. */}
                <ul className="line-errors" tabIndex={0} aria-label="The problems, by line">{records.map((m, i) => <li key={i}>{pageTimes(m, displayOffset)}</li>)}</ul>
                {modeHint(outcome.mode, records) && <p className="mode-hint">{modeHint(outcome.mode, records)}</p>}
              </>
            )}
            {!general.length && !records && <p>Please correct the fields marked above; nothing has been stored.</p>}
          </div>
        )}
        {outcome?.kind === "checked" && (
          <div className="message" role="status">
            {outcome.count === 0 ? <p>There are no records in it: nothing to store.</p> : (
              <>
                <p><strong>{outcome.count.toLocaleString("en-US")} records</strong>{outcome.start && outcome.end ? `, from ${rangeText(outcome.start, outcome.end, displayOffset)}` : ""}. {outcome.replaced !== null && <> It replaces {outcome.replaced.toLocaleString("en-US")} stored records.</>} Nothing has been stored yet.</p>
                <p className="small">The first lines:</p>
                <pre className="first-lines" tabIndex={0}>{outcome.lines.join("\n")}</pre>
              </>
            )}
          </div>
        )}
        {outcome?.kind === "stored" && (
          <div className="message success" role="status">
            <p><strong>Stored {outcome.count.toLocaleString("en-US")} records</strong>{outcome.start && outcome.end ? `, from ${rangeText(outcome.start, outcome.end, displayOffset)}` : ""}.</p>
            <p><Link href={chartHref}>See the chart</Link></p>
            {Object.keys(processes).length > 0 && <UploadRuns processesApi={processesApi} descriptions={processes} storedAt={outcome.at} />}
          </div>
        )}
      </div>
    </form>
  );
}
