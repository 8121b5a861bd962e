"use client";

import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { formatCountIn } from "@/lib/i18n/format";

/**
 * The station's last telemetry fetch (telemetry.md §5 "fetch now with its progress and result"):
 * shown as the page rendered it, then, while it is queued or running, read again from
 * `GET …/telemetry/fetch/` every second: the sensors done so far, then what each stored or why
 * it failed. Without JavaScript the page shows the fetch as it was when rendered.
 */
export interface FetchRun {
  id: number;
  status: "queued" | "running" | "succeeded" | "failed";
  started_at: string | null;
  finished_at: string | null;
  sensors_done: number;
  sensors_total: number;
  error: string | null;
  fetch: {
    status: "ok" | "error";
    records: number;
    message: string;
    sensors: { sensor_id: string; records: number; status: "ok" | "error"; message: string }[];
  } | null;
}

const POLL_MS = 1000;
const MAX_POLLS = 600;

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "");

type Words = ReturnType<typeof useTranslations<"manageOpsTelemetryFetch">>;

export function fetchWords(run: FetchRun, t: Words): string {
  switch (run.status) {
    case "queued":
      return run.error ? t("queuedRetry", { error: run.error }) : t("queued");
    case "running":
      return t("running", { done: run.sensors_done, total: run.sensors_total });
    case "failed":
      return t("failed", { reason: run.error ?? t("noReason") });
    case "succeeded": {
      const f = run.fetch;
      if (!f) return t("done");
      if (f.message) return t("failed", { reason: f.message });
      const failed = f.sensors.filter((s) => s.status === "error").length;
      return failed ? t("doneAtFailed", { when: when(run.finished_at), records: f.records, failed }) : t("doneAt", { when: when(run.finished_at), records: f.records });
    }
  }
}

export default function TelemetryFetch({ api, initial }: { api: string; initial: FetchRun | null }) {
  const t = useTranslations("manageOpsTelemetryFetch");
  const locale = useLocale();
  const router = useRouter();
  const [run, setRun] = useState<FetchRun | null>(initial);
  /** Why the progress could not be read: the server's status, or the browser's error. */
  const [problem, setProblem] = useState<{ status: number } | { message: string } | null>(null);
  const pending = run !== null && (run.status === "queued" || run.status === "running");

  useEffect(() => {
    if (!pending) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (n: number) => {
      try {
        const answer = await fetch(api, { credentials: "same-origin", headers: { Accept: "application/json" } });
        if (!answer.ok) {
          if (!stopped) setProblem({ status: answer.status });
          return;
        }
        const next = (await answer.json()) as FetchRun | null;
        if (stopped) return;
        setProblem(null);
        setRun(next);
        if (next && (next.status === "queued" || next.status === "running")) {
          if (n < MAX_POLLS) timer = setTimeout(() => void poll(n + 1), POLL_MS);
        } else {
          // The fetch has ended: the page's last fetch, status, feed and log are read again.
          router.refresh();
        }
      } catch (error) {
        if (stopped) return;
        setProblem({ message: (error as Error).message });
      }
    };
    timer = setTimeout(() => void poll(1), POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api, pending, router]);

  if (!run) return <p className="muted">{t("noFetch")}</p>;
  const f = run.status === "succeeded" ? run.fetch : null;
  return (
    <div className="telemetry-fetch" data-status={run.status} aria-live="polite">
      <p className={f?.status === "error" || run.status === "failed" ? "message error" : run.status === "succeeded" ? "message success" : "message"}>
        {fetchWords(run, t)}
      </p>
      {pending && run.sensors_total > 0 && (
        <progress max={run.sensors_total} value={run.sensors_done} aria-label={t("progressLabel")}>{t("progress", { done: formatCountIn(locale, run.sensors_done), total: formatCountIn(locale, run.sensors_total) })}</progress>
      )}
      {f && f.sensors.length > 0 && (
        <ul className="item-list small">
          {f.sensors.map((s) => (
            <li key={s.sensor_id}>
              {t.rich("sensor", { id: s.sensor_id, code: (chunks) => <code>{chunks}</code> })} {s.status === "ok" ? t("newRecords", { count: s.records }) : <span className="error-text">{s.message}</span>}
            </li>
          ))}
        </ul>
      )}
      {problem && <p className="message error" role="alert">{t("unreadable", { reason: "status" in problem ? t("serverAnswered", { status: String(problem.status) }) : problem.message })}</p>}
    </div>
  );
}
