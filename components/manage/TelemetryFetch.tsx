"use client";

import { useEffect, useState } from "react";

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

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "");

export function fetchWords(run: FetchRun): string {
  switch (run.status) {
    case "queued":
      return run.error ? `Waiting to be tried again after an error: ${run.error}` : "Queued: it starts as soon as a slot is free.";
    case "running":
      return `Fetching… ${run.sensors_done} of ${plural(run.sensors_total, "sensor", "sensors")} done.`;
    case "failed":
      return `The fetch failed: ${run.error ?? "no reason given"}`;
    case "succeeded": {
      const f = run.fetch;
      if (!f) return "Done.";
      if (f.message) return `The fetch failed: ${f.message}`;
      const failed = f.sensors.filter((s) => s.status === "error").length;
      return `Done at ${when(run.finished_at)}: ${plural(f.records, "new record", "new records")}${failed ? `; ${plural(failed, "sensor", "sensors")} failed` : ""}.`;
    }
  }
}

export default function TelemetryFetch({ api, initial }: { api: string; initial: FetchRun | null }) {
  const [run, setRun] = useState<FetchRun | null>(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const pending = run !== null && (run.status === "queued" || run.status === "running");

  useEffect(() => {
    if (!pending) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (n: number) => {
      try {
        const answer = await fetch(api, { credentials: "same-origin", headers: { Accept: "application/json" } });
        if (!answer.ok) throw new Error(`The server answered ${answer.status}.`);
        const next = (await answer.json()) as FetchRun | null;
        if (stopped) return;
        setProblem(null);
        setRun(next);
        if (next && (next.status === "queued" || next.status === "running") && n < MAX_POLLS) timer = setTimeout(() => void poll(n + 1), POLL_MS);
      } catch (error) {
        if (stopped) return;
        setProblem(`The fetch's progress could not be read (${(error as Error).message}); reload the page to see it.`);
      }
    };
    timer = setTimeout(() => void poll(1), POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [api, pending]);

  if (!run) return <p className="muted">No fetch yet.</p>;
  const f = run.status === "succeeded" ? run.fetch : null;
  return (
    <div className="telemetry-fetch" data-status={run.status} aria-live="polite">
      <p className={f?.status === "error" || run.status === "failed" ? "message error" : run.status === "succeeded" ? "message success" : "message"}>
        {fetchWords(run)}
      </p>
      {pending && run.sensors_total > 0 && (
        <progress max={run.sensors_total} value={run.sensors_done} aria-label="Sensors fetched">{run.sensors_done} of {run.sensors_total}</progress>
      )}
      {f && f.sensors.length > 0 && (
        <ul className="item-list small">
          {f.sensors.map((s) => (
            <li key={s.sensor_id}>
              Sensor <code>{s.sensor_id}</code>: {s.status === "ok" ? plural(s.records, "new record", "new records") : <span className="error-text">{s.message}</span>}
            </li>
          ))}
        </ul>
      )}
      {problem && <p className="message error" role="alert">{problem}</p>}
    </div>
  );
}
