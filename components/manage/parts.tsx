import Link from "next/link";
import type { ReactNode } from "react";
import type { ActivityItem } from "@/lib/activity";
import type { RunJson, SiteRun } from "@/lib/processing";
import { Breadcrumbs, type Crumb } from "@/components/site/Breadcrumbs";
import { FORM_EXPIRED, NOT_ALLOWED, NOT_QUEUED, SESSION_ENDED } from "@/lib/site/forms";
import { managePaths } from "@/lib/site/manage-paths";
import { countText } from "@/lib/site/numbers";
import { formatDateTime, offsetLabel } from "@/lib/site/time";

/** Pieces shared by the management pages (server components). */

export type { Crumb };

export function ManageHeader({ crumbs, title, lead, actions }: { crumbs: Crumb[]; title: ReactNode; lead?: ReactNode; actions?: ReactNode }) {
  return (
    <>
      {/* On /manage/ itself (no crumbs) there is no trail: a "Manage" crumb would only link to the page it is on. */}
      {crumbs.length > 0 && <Breadcrumbs crumbs={[{ label: "Manage", href: managePaths.home }, ...crumbs]} />}
      <header className="page-header manage-header">
        <div>
          <h1>{title}</h1>
          {lead && <p className="lead">{lead}</p>}
        </div>
        {actions && <div className="header-actions">{actions}</div>}
      </header>
    </>
  );
}

/** The short confirmation after a change (the `done` parameter of the redirect). */
const DONE: Record<string, string> = {
  created: "Created.",
  saved: "Your changes have been saved.",
  people: "The maintainers and data viewers have been saved.",
  deleted: "Deleted.",
  "station-deleted": "The station has been deleted, with everything that belonged to it.",
  "group-deleted": "The time series group has been deleted, with its time series and their records.",
  "series-created": "The time series has been created.",
  "series-saved": "The time series has been saved.",
  "series-deleted": "The time series has been deleted, with its records.",
  "process-created": "The process has been created; its first run (from scratch) is queued.",
  "process-saved": "The process has been saved; its target will be recomputed from scratch.",
  "process-deleted": "The process has been deleted. Its target series and their records stay.",
  "run-queued": "A run has been queued.",
  "dry-run-queued": "A dry run has been queued: it writes nothing, and its row below will say what a run would do.",
  "source-created": "The replication source has been added.",
  "source-saved": "The replication source has been saved.",
  "source-deleted": "The replication source has been deleted. The stations copied from it stay, as stations of this instance.",
  detached: "The station has been detached: replication no longer updates it, and it can be edited here.",
  "files-added": "The file has been added.",
  "files-saved": "The file has been saved.",
  "files-deleted": "The file has been deleted.",
  "images-added": "The image has been added.",
  "images-saved": "The image has been saved.",
  "images-deleted": "The image has been deleted.",
  "events-added": "The event has been added.",
  "events-saved": "The event has been saved.",
  "events-deleted": "The event has been deleted.",
  "telemetry-saved": "The telemetry has been saved; its fetches run on its schedule (or now, with Fetch now).",
  "telemetry-deleted": "The telemetry has been deleted. The records it fetched stay.",
  "fetch-queued": "A fetch has been queued; its progress shows below.",
  "alerts-saved": "The feed alerts have been saved.",
  "access-approved": "The access request has been approved; the user has been told by e-mail.",
  "access-denied": "The access request has been denied; the user has been told by e-mail, with your reason.",
};

export function Done({ code }: { code: string | string[] | undefined }) {
  const message = typeof code === "string" ? DONE[code] : undefined;
  return message ? <p className="message success" role="status">{message}</p> : null;
}

/**
 * Why a "Run now" queued nothing, when its form is no longer on the page to say so (the
 * `problem` parameter of the redirect): its source or process was deleted (or the source disabled) meanwhile.
 */
const PROBLEMS: Record<string, string> = {
  "source-gone": "The run was not queued: the source no longer exists (someone may have deleted it since you opened the page).",
  "source-disabled": "The run was not queued: the source is disabled (someone may have disabled it since you opened the page). Edit it to enable it.",
  "process-gone": "The run was not queued: the process no longer exists (someone may have deleted it since you opened the page).",
  "not-queued": NOT_QUEUED,
  "not-allowed": NOT_ALLOWED,
  "session-ended": SESSION_ENDED,
  "form-expired": FORM_EXPIRED,
};

export function Problem({ code }: { code: string | string[] | undefined }) {
  const message = typeof code === "string" ? PROBLEMS[code] : undefined;
  return message ? <p className="message error" role="alert">{message}</p> : null;
}

const ACTION_LABELS: Record<string, string> = { create: "created", change: "changed", delete: "deleted", upload: "upload", reset: "reset e-mail", run: "run", fetch: "telemetry" };

/** The latest changes (management.md §3): when, who, what. */
export function ActivityList({ items, empty, stationLinks }: { items: ActivityItem[]; empty: string; stationLinks?: boolean }) {
  if (!items.length) return <p className="muted">{empty}</p>;
  return (
    <ol className="activity-list">
      {items.map((a) => (
        <li key={a.id} data-action={a.action}>
          <time dateTime={a.time} className="muted small">{a.time.slice(0, 16).replace("T", " ")} UTC</time>
          <span className={`badge action-${a.action}`}>{ACTION_LABELS[a.action] ?? a.action}</span>
          <span className="activity-summary">{a.summary}</span>
          <span className="muted small"> — {a.user ?? "a job"}</span>
          {stationLinks && a.station !== null && a.action !== "delete" && a.object_type !== "station" && (
            <> · <Link className="small" href={managePaths.station(a.station)}>station</Link></>
          )}
          {stationLinks && a.object_type === "station" && a.action !== "delete" && (
            <> · <Link className="small" href={managePaths.station(a.object_id)}>open</Link></>
          )}
        </li>
      ))}
    </ol>
  );
}

/**
 * What a succeeded run did. Its `from` is null both for a run that replaced the whole target
 * (from scratch) and for one that computed nothing (no changes since the last run, …): the
 * latter has a note saying why, and wrote nothing.
 */
function succeededWords(run: RunJson & { note?: string | null }, dataTime: (t: string) => string): string {
  if (run.note) return run.note;
  const written = `${countText(run.records_written, "record", "records")} written`;
  return run.from ? `${written} from ${dataTime(run.from)}` : `${written} (from scratch)`;
}

/**
 * A process's run in one line: its state, when (in UTC, as the other job times), what it wrote
 * from which record's time (in the station's zone, `offset` minutes east, as the station's data), its error.
 */
export function RunStatus({ run, offset }: { run: SiteRun | RunJson | null; offset: number }) {
  if (!run) return <span className="muted">Not run yet.</span>;
  const when = (t: string | null) => (t ? `${t.slice(0, 16).replace("T", " ")} UTC` : "");
  const dataTime = (t: string) => `${formatDateTime(Date.parse(t) / 1000, offset)} (${offsetLabel(offset)})`;
  return (
    <span className={`run-status run-${run.status}`} data-status={run.status}>
      <span className={`badge run-${run.status}`}>{run.status}</span>{" "}
      {run.status === "succeeded" && <>{when(run.finished_at)} · {succeededWords(run, dataTime)}</>}
      {run.status === "failed" && <>{when(run.finished_at)}</>}
      {run.status === "queued" && <>since {when(run.queued_at)}</>}
      {run.status === "running" && <>since {when(run.started_at)}</>}
      {/* A queued run with an error is a retry after a failed attempt (the job queue's backoff). */}
      {run.error && <span className="run-error" role="note"> — {run.status === "queued" ? "the last attempt failed and will be retried: " : ""}{run.error}</span>}
    </span>
  );
}

/** A section of a management page under its heading. */
export function Section({ id, title, children, actions }: { id: string; title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card" id={id} aria-labelledby={`${id}-heading`}>
      <div className="section-heading">
        <h2 id={`${id}-heading`}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A plain table of the management pages. */
export function Table({ columns, children }: { columns: string[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="data-table">
        <thead>
          <tr>{columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Page links of a paged list ("?page=N", other parameters kept). */
export function Pager({ page, pages, params, path }: { page: number; pages: number; params: Record<string, string>; path: string }) {
  if (pages <= 1) return null;
  const href = (n: number) => `${path}?${new URLSearchParams({ ...params, ...(n > 1 ? { page: String(n) } : {}) })}`;
  return (
    <nav className="pager" aria-label="Pages">
      {page > 1 ? <Link href={href(page - 1)} rel="prev">← Previous</Link> : <span />}
      <span className="muted">Page {page} of {pages}</span>
      {page < pages ? <Link href={href(page + 1)} rel="next">Next →</Link> : <span />}
    </nav>
  );
}

/** A page number from the query string (1 when absent or not a positive integer). */
export function pageNumber(value: string | string[] | undefined): number {
  const n = typeof value === "string" && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return n >= 1 ? n : 1;
}
