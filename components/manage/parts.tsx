import Link from "next/link";
import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { isActivityAction, type ActivityAction, type ActivityItem } from "@/lib/activity";
import type { RunJson, SiteRun } from "@/lib/processing";
import { Breadcrumbs, type Crumb } from "@/components/site/Breadcrumbs";
import type { Messages } from "@/lib/i18n";
import { managePaths } from "@/lib/site/manage-paths";
import { formatDateTime, offsetLabel } from "@/lib/site/time";

/** Pieces shared by the management pages (server components). */

export type { Crumb };

export function ManageHeader({ crumbs, title, lead, actions }: { crumbs: Crumb[]; title: ReactNode; lead?: ReactNode; actions?: ReactNode }) {
  const t = useTranslations("manage");
  return (
    <>
      {/* On /manage/ itself (no crumbs) there is no trail: a "Manage" crumb would only link to the page it is on. */}
      {crumbs.length > 0 && <Breadcrumbs crumbs={[{ label: t("title"), href: managePaths.home }, ...crumbs]} />}
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

/** The short confirmation after a change (the `done` parameter of the redirect), by its key in manageParts.done. */
const DONE = {
  created: "created", saved: "saved", people: "people", deleted: "deleted", "station-deleted": "stationDeleted", "group-deleted": "groupDeleted",
  "series-created": "seriesCreated", "series-saved": "seriesSaved", "series-deleted": "seriesDeleted",
  "process-created": "processCreated", "process-saved": "processSaved", "process-deleted": "processDeleted",
  "run-queued": "runQueued", "dry-run-queued": "dryRunQueued", "source-created": "sourceCreated", "source-saved": "sourceSaved", "source-deleted": "sourceDeleted",
  detached: "detached", "files-added": "filesAdded", "files-saved": "filesSaved", "files-deleted": "filesDeleted",
  "images-added": "imagesAdded", "images-saved": "imagesSaved", "images-deleted": "imagesDeleted",
  "events-added": "eventsAdded", "events-saved": "eventsSaved", "events-deleted": "eventsDeleted",
  "telemetry-saved": "telemetrySaved", "telemetry-deleted": "telemetryDeleted", "fetch-queued": "fetchQueued", "alerts-saved": "alertsSaved",
  "access-approved": "accessApproved", "access-denied": "accessDenied",
} as const satisfies Record<string, keyof Messages["manageParts"]["done"]>;

/** The code's entry of a table of codes, or undefined (not inherited keys such as "toString"). */
function entryOf<T extends object>(table: T, code: string | string[] | undefined): T[keyof T] | undefined {
  return typeof code === "string" && Object.hasOwn(table, code) ? table[code as keyof T] : undefined;
}

export function Done({ code }: { code: string | string[] | undefined }) {
  const t = useTranslations("manageParts");
  const key = entryOf(DONE, code);
  return key ? <p className="message success" role="status">{t(`done.${key}`)}</p> : null;
}

/**
 * Why a "Run now" queued nothing, when its form is no longer on the page to say so (the
 * `problem` parameter of the redirect): its source or process was deleted (or the source disabled)
 * meanwhile. The last four are lib/site/forms.ts's messages, in words of the page's language.
 */
const PROBLEMS = {
  "source-gone": "sourceGone",
  "source-disabled": "sourceDisabled",
  "process-gone": "processGone",
  "not-queued": "notQueued",
  "not-allowed": "notAllowed",
  "session-ended": "sessionEnded",
  "form-expired": "formExpired",
} as const satisfies Record<string, keyof Messages["manageParts"]["problem"]>;

export function Problem({ code }: { code: string | string[] | undefined }) {
  const t = useTranslations("manageParts");
  const key = entryOf(PROBLEMS, code);
  return key ? <p className="message error" role="alert">{t(`problem.${key}`)}</p> : null;
}

/** The catalogue key of a recorded action (lib/activity's ACTIVITY_ACTIONS): one with no word fails the type check here. */
const actionKey = (action: ActivityAction): keyof Messages["manageParts"]["action"] => action;

/** The latest changes (management.md §3): when, who, what. */
export function ActivityList({ items, empty, stationLinks }: { items: ActivityItem[]; empty: string; stationLinks?: boolean }) {
  const t = useTranslations("manageParts");
  if (!items.length) return <p className="muted">{empty}</p>;
  return (
    <ol className="activity-list">
      {items.map((a) => (
        <li key={a.id} data-action={a.action}>
          <time dateTime={a.time} className="muted small">{a.time.slice(0, 16).replace("T", " ")} UTC</time>
          <span className={`badge action-${a.action}`}>{isActivityAction(a.action) ? t(`action.${actionKey(a.action)}`) : a.action}</span>
          <span className="activity-summary">{a.summary}</span>
          <span className="muted small"> — {a.user ?? t("aJob")}</span>
          {stationLinks && a.station !== null && a.action !== "delete" && a.object_type !== "station" && (
            <> · <Link className="small" href={managePaths.station(a.station)}>{t("station")}</Link></>
          )}
          {stationLinks && a.object_type === "station" && a.action !== "delete" && (
            <> · <Link className="small" href={managePaths.station(a.object_id)}>{t("open")}</Link></>
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
function succeededWords(run: RunJson & { note?: string | null }, dataTime: (t: string) => string, t: ReturnType<typeof useTranslations<"manageParts">>): string {
  if (run.note) return run.note;
  const written = t("written", { count: run.records_written });
  return run.from ? t("writtenFrom", { written, time: dataTime(run.from) }) : t("writtenFromScratch", { written });
}

/**
 * A process's run in one line: its state, when (in UTC, as the other job times), what it wrote
 * from which record's time (in the station's zone, `offset` minutes east, as the station's data), its error.
 */
export function RunStatus({ run, offset }: { run: SiteRun | RunJson | null; offset: number }) {
  const t = useTranslations("manageParts");
  if (!run) return <span className="muted">{t("notRun")}</span>;
  const when = (t: string | null) => (t ? `${t.slice(0, 16).replace("T", " ")} UTC` : "");
  const dataTime = (t: string) => `${formatDateTime(Date.parse(t) / 1000, offset)} (${offsetLabel(offset)})`;
  return (
    <span className={`run-status run-${run.status}`} data-status={run.status}>
      <span className={`badge run-${run.status}`}>{t(`runStatus.${run.status}`)}</span>{" "}
      {run.status === "succeeded" && <>{when(run.finished_at)} · {succeededWords(run, dataTime, t)}</>}
      {run.status === "failed" && <>{when(run.finished_at)}</>}
      {run.status === "queued" && <>{t("since", { time: when(run.queued_at) })}</>}
      {run.status === "running" && <>{t("since", { time: when(run.started_at) })}</>}
      {/* A queued run with an error is a retry after a failed attempt (the job queue's backoff). */}
      {run.error && <span className="run-error" role="note"> — {run.status === "queued" ? t("retried") : ""}{run.error}</span>}
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
  const t = useTranslations("manageParts");
  if (pages <= 1) return null;
  const href = (n: number) => `${path}?${new URLSearchParams({ ...params, ...(n > 1 ? { page: String(n) } : {}) })}`;
  return (
    <nav className="pager" aria-label={t("pages")}>
      {page > 1 ? <Link href={href(page - 1)} rel="prev">{t("previous")}</Link> : <span />}
      <span className="muted">{t("pageOf", { page: String(page), pages: String(pages) })}</span>
      {page < pages ? <Link href={href(page + 1)} rel="next">{t("next")}</Link> : <span />}
    </nav>
  );
}

/** A page number from the query string (1 when absent or not a positive integer). */
export function pageNumber(value: string | string[] | undefined): number {
  const n = typeof value === "string" && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return n >= 1 ? n : 1;
}
