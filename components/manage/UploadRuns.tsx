"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";

/**
 * After an upload is stored (management.md §2 "shows the processes that the upload queued"):
 * of the processes the upload's records feed (`descriptions`, chosen by the page), those whose
 * run was pending when the records were stored or finished since, read from the API's process
 * list (processing.md §1, each with its `last_run`) every second until none is queued or running.
 * A run pending before the upload is the one that processes its records too (runs of one source
 * are merged, processing.md §4).
 */
export interface UploadRunsProps {
  /** `…/timeseriesgroups/{gid}/processes/` of the API. */
  processesApi: string;
  /** The processes the upload's records feed, in words, by id, as the group page names them; other processes of the group are not shown. */
  descriptions: Record<number, string>;
  /** When the records were stored (the server's clock, from the answer's Date header), in ms. */
  storedAt: number;
}

interface Run {
  status: "queued" | "running" | "succeeded" | "failed";
  finished_at: string | null;
  records_written: number;
  error: string | null;
}

interface Listed {
  id: number;
  enabled: boolean;
  last_run: Run | null;
}

const POLL_MS = 1000;
const MAX_POLLS = 300;

const pending = (run: Run) => run.status === "queued" || run.status === "running";

/**
 * The runs this upload caused: of the processes `fed` (those its records feed), pending ones and
 * those finished since it was stored (the Date header has whole seconds).
 */
export function runsAfter(processes: Listed[], storedAt: number, fed?: ReadonlySet<number>): { id: number; run: Run }[] {
  return processes.flatMap((p) => {
    const run = p.last_run;
    if (!run || !p.enabled || (fed && !fed.has(p.id))) return [];
    const finished = run.finished_at === null ? null : Date.parse(run.finished_at);
    return pending(run) || (finished !== null && finished >= storedAt - 1000) ? [{ id: p.id, run }] : [];
  });
}

/** The messages runWords needs, of the upload page's catalogue (a translator of "manageSeriesUpload"). */
type RunTranslator = (key: "runQueued" | "runQueuedAgain" | "runRunning" | "runDone" | "runFailed" | "runNoReason", values?: Record<string, string | number>) => string;

export function runWords(run: Run, t: RunTranslator): string {
  switch (run.status) {
    case "queued":
      return run.error ? t("runQueuedAgain", { error: run.error }) : t("runQueued");
    case "running":
      return t("runRunning");
    case "succeeded":
      return t("runDone", { count: run.records_written });
    case "failed":
      return t("runFailed", { error: run.error ?? t("runNoReason") });
  }
}

export default function UploadRuns({ processesApi, descriptions, storedAt }: UploadRunsProps) {
  const t = useTranslations("manageSeriesUpload");
  const [runs, setRuns] = useState<{ id: number; run: Run }[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const serverAnswered = useCallback((status: number) => t("serverAnswered", { status }), [t]);
  const fedKey = Object.keys(descriptions).join(",");
  useEffect(() => {
    const fed = new Set(fedKey.split(",").map(Number));
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (n: number) => {
      try {
        const answer = await fetch(processesApi, { credentials: "same-origin", headers: { Accept: "application/json" } });
        if (!answer.ok) throw new Error(serverAnswered(answer.status));
        const found = runsAfter(((await answer.json()) as { results: Listed[] }).results, storedAt, fed);
        if (stopped) return;
        setRuns(found);
        setProblem(null);
        if (found.some((r) => pending(r.run)) && n < MAX_POLLS) timer = setTimeout(() => poll(n + 1), POLL_MS);
      } catch (error) {
        if (stopped) return;
        setProblem((error as Error).message);
        if (n < MAX_POLLS) timer = setTimeout(() => poll(n + 1), POLL_MS * 5);
      }
    };
    poll(0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [processesApi, storedAt, fedKey, serverAnswered]);

  if (runs === null && problem === null) return <p className="small muted">{t("runsLooking")}</p>;
  if (runs !== null && runs.length === 0) return <p className="small muted">{t("runsNone")}</p>;
  return (
    <div className="upload-runs">
      <p className="small">{t("runsQueued")}</p>
      {runs && (
        <ul className="upload-runs-list" aria-live="polite">
          {runs.map(({ id, run }) => (
            <li key={id} data-status={run.status}><span className="upload-run-process">{descriptions[id] ?? t("runsProcess", { id })}</span>: <span className="upload-run-status">{runWords(run, t)}</span></li>
          ))}
        </ul>
      )}
      {problem && <p className="small muted">{t("runsUnreadable", { problem })}</p>}
    </div>
  );
}
