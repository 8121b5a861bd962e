import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { forbidden, redirect } from "next/navigation";
import ManagedForm from "@/components/manage/Form";
import { SourceFields } from "@/components/manage/fields";
import { Done, ManageHeader, Problem, Section } from "@/components/manage/parts";
import { isSuperuser } from "@/lib/auth/permissions";
import type { Job } from "@/lib/jobs/queue";
import { countSources, runJson, type RunJson, sourceRunHistory, sourcesPage, sourceValues } from "@/lib/replication";
import { currentUser } from "@/lib/site/current-user";
import { superuserPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { formToken, TOKEN_FIELD } from "@/lib/site/form-token";
import { addSource, runNow } from "./actions";
import { formatCountIn, type Locale } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";
import { runMessageIn } from "@/lib/site/field-errors";

export async function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata((await getTranslations("manageOpsReplication"))("title"));
}

type Words = Awaited<ReturnType<typeof getTranslations<"manageOpsReplication">>>;

const RUNS_SHOWN = 10;

function when(iso: string | null): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : "—";
}

function counts(run: RunJson, t: Words, locale: Locale): string {
  if (run.created === null) return "—";
  const n = (v: number) => formatCountIn(locale, v);
  const values = { created: n(run.created), updated: n(run.updated ?? 0), unchanged: n(run.unchanged ?? 0), deleted: n(run.deleted ?? 0), records: n(run.records!) };
  return run.dry_run ? t("countsDry", values) : t("counts", values);
}

function interval(seconds: number, t: Words): string {
  if (seconds === 0) return t("onDemand");
  if (seconds % 86_400 === 0) return t("everyDays", { n: String(seconds / 86_400) });
  if (seconds % 3_600 === 0) return t("everyHours", { n: String(seconds / 3_600) });
  if (seconds % 60 === 0) return t("everyMinutes", { n: String(seconds / 60) });
  return t("everySeconds", { n: String(seconds) });
}

const RUN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;

/** A run's status in words; a status the page does not know, as the API writes it. */
function runStatus(status: string, t: Words): string {
  return (RUN_STATUSES as readonly string[]).includes(status) ? t(`runStatus.${status as (typeof RUN_STATUSES)[number]}`) : status;
}

/**
 * `{site}/manage/replication/` (replication.md §1, superusers): the replication sources and
 * their latest runs, with "Run now", Edit and Delete, and the form of a new source (the same
 * rules as `POST /api/replication/sources/`).
 */
export default async function ReplicationPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const user = await currentUser();
  if (!user) redirect(`/accounts/login/?next=${encodeURIComponent("/manage/replication/")}`);
  // A page the user may not use answers 403 (management.md §1), as the other superuser pages do.
  if (!isSuperuser(user)) forbidden();
  const [t, locale] = await Promise.all([getTranslations("manageOpsReplication"), requestLocale()]);
  const token = formToken(user.sessionId);
  const sources = await sourcesPage(user, 0, await countSources(user));
  // A queued run says when it is due (the next scheduled run is queued an interval ahead).
  // A run's error and warnings are stored in English (and listed so by the API): shown in the page's language where known.
  const shown = (job: Job) => {
    const run = runJson(job);
    return { ...run, error: run.error && runMessageIn(locale, run.error), warnings: run.warnings.map((w) => runMessageIn(locale, w)), due: job.status === "queued" ? job.runAfter.toISOString() : null };
  };
  const runs = new Map(await Promise.all(sources.map(async (s) => [s.id, (await sourceRunHistory(s.id, RUNS_SHOWN)).map(shown)] as const)));
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title") }]} title={t("title")}
        lead={t("lead")} />
      <Done code={query.done} />
      <Problem code={query.problem} />
      {sources.length === 0 && (
        <section className="card">
          <p>{t.rich("noSources", { code: (chunks) => <code>{chunks}</code> })}</p>
        </section>
      )}
      {sources.map((s) => (
        <section key={s.id} className="card replication-source" aria-labelledby={`source-${s.id}`}>
          <h2 id={`source-${s.id}`}>{s.name || s.url}</h2>
          <dl className="details">
            <div><dt>{t("url")}</dt><dd><a href={s.url}>{s.url}</a></dd></div>
            <div><dt>{t("stations")}</dt><dd>{s.query ? <q className="query">{s.query}</q> : t("allStations")}</dd></div>
            <div><dt>{t("schedule")}</dt><dd>{s.enabled ? interval(s.interval, t) : t("disabled")}{s.prune ? t("prune") : ""}</dd></div>
            <div><dt>{t("credentials")}</dt><dd>{s.token ? t("aToken") : s.username ? t("user", { name: s.username }) : t("noCredentials")}</dd></div>
          </dl>
          <div className="form-actions">
            {/* A disabled source does not run (the API refuses it too): Edit enables it. */}
            {s.enabled && (
              <form action={runNow} className="form-actions" aria-label={t("runLabel", { name: s.name || s.url })}>
                <input type="hidden" name={TOKEN_FIELD} value={token} />
                <input type="hidden" name="source" value={s.id} />
                <button type="submit">{t("runNow")}</button>
                <button type="submit" name="run" value="dry" className="secondary">{t("dryRun")}</button>
              </form>
            )}
            <Link className="button secondary" href={managePaths.source(s.id)} aria-label={t("editLabel", { name: s.name || s.url })}>{t("edit")}</Link>
            <Link className="button danger-link" href={`${managePaths.source(s.id)}delete/`} aria-label={t("deleteLabel", { name: s.name || s.url })}>{t("delete")}</Link>
          </div>
          <h3>{t("runs")}</h3>
          {(runs.get(s.id) ?? []).length === 0 ? <p className="muted">{t("noRuns")}</p> : (
            <div className="table-wrap">
              <table className="data-table">
                <thead>
                  <tr><th scope="col">{t("colRun")}</th><th scope="col">{t("colStatus")}</th><th scope="col">{t("colStarted")}</th><th scope="col">{t("colFinished")}</th><th scope="col">{t("colWhat")}</th></tr>
                </thead>
                <tbody>
                  {runs.get(s.id)!.map((r) => (
                    <tr key={r.id}>
                      <th scope="row">{r.id}</th>
                      <td data-label={t("colStatus")}>{runStatus(r.status, t)}</td>
                      <td data-label={t("colStarted")}>{when(r.started_at)}</td>
                      <td data-label={t("colFinished")}>{when(r.finished_at)}</td>
                      <td data-label={t("colWhat")}>
                        {r.error ? <span className="error-text">{r.error}</span> : r.due ? (r.due > new Date().toISOString() ? t(r.dry_run ? "dueDry" : "due", { when: when(r.due) }) : t("waiting")) : r.created === null && r.warnings.length === 1 ? r.warnings[0] : counts(r, t, locale)}
                        {r.warnings.length > 0 && r.created !== null && (
                          <details>
                            <summary>{t("warnings", { count: r.warnings.length })}</summary>
                            <ul>{r.warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>
                          </details>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
      <Section id="add" title={t("addSource")}>
        <ManagedForm action={addSource} initial={sourceValues(null)} token={token} submit={t("addButton")} label={t("newSource")}>
          <SourceFields />
        </ManagedForm>
        <p className="muted small">{t("cliNote")}</p>
        <pre>npm run replicate -- --from https://other.example.org/ [--query &quot;owner:ntua&quot;]</pre>
      </Section>
      <p className="muted small"><Link href="/">{t("backToStations")}</Link></p>
    </div>
  );
}
