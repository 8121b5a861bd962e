import type { Metadata } from "next";
import Link from "next/link";
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
import { formatCount } from "@/lib/site/numbers";

export function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata("Replication");
}

const RUNS_SHOWN = 10;

function when(iso: string | null): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : "—";
}

function counts(run: RunJson): string {
  if (run.created === null) return "—";
  return `${run.dry_run ? "Dry run, nothing written: " : ""}${formatCount(run.created)} created, ${formatCount(run.updated ?? 0)} updated, ${formatCount(run.unchanged ?? 0)} unchanged, ${formatCount(run.deleted ?? 0)} deleted; ${formatCount(run.records!)} records`;
}

function interval(seconds: number): string {
  if (seconds === 0) return "on demand";
  if (seconds % 86_400 === 0) return `every ${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `every ${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `every ${seconds / 60} min`;
  return `every ${seconds} s`;
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
  const token = formToken(user.sessionId);
  const sources = await sourcesPage(user, 0, await countSources(user));
  // A queued run says when it is due (the next scheduled run is queued an interval ahead).
  const shown = (job: Job) => ({ ...runJson(job), due: job.status === "queued" ? job.runAfter.toISOString() : null });
  const runs = new Map(await Promise.all(sources.map(async (s) => [s.id, (await sourceRunHistory(s.id, RUNS_SHOWN)).map(shown)] as const)));
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: "Replication" }]} title="Replication"
        lead="Stations copied from other instances of this service (or Enhydris). Add, edit or delete a source here; its runs copy the stations its query finds, on its schedule or with Run now (Dry run shows what a run would change, and writes nothing). Copied stations are read-only here until a superuser detaches them on the station's management page." />
      <Done code={query.done} />
      <Problem code={query.problem} />
      {sources.length === 0 && (
        <section className="card">
          <p>No sources yet. Add one below, or with <code>POST /api/replication/sources/</code>.</p>
        </section>
      )}
      {sources.map((s) => (
        <section key={s.id} className="card replication-source" aria-labelledby={`source-${s.id}`}>
          <h2 id={`source-${s.id}`}>{s.name || s.url}</h2>
          <dl className="details">
            <div><dt>URL</dt><dd><a href={s.url}>{s.url}</a></dd></div>
            <div><dt>Stations</dt><dd>{s.query ? <q className="query">{s.query}</q> : "all"}</dd></div>
            <div><dt>Schedule</dt><dd>{s.enabled ? interval(s.interval) : "disabled"}{s.prune ? "; deletions at the source are applied here" : ""}</dd></div>
            <div><dt>Credentials</dt><dd>{s.token ? "a token" : s.username ? `user ${s.username}` : "none (public data only)"}</dd></div>
          </dl>
          <div className="form-actions">
            {/* A disabled source does not run (the API refuses it too): Edit enables it. */}
            {s.enabled && (
              <form action={runNow} className="form-actions" aria-label={`Run ${s.name || s.url} now`}>
                <input type="hidden" name={TOKEN_FIELD} value={token} />
                <input type="hidden" name="source" value={s.id} />
                <button type="submit">Run now</button>
                <button type="submit" name="run" value="dry" className="secondary">Dry run</button>
              </form>
            )}
            <Link className="button secondary" href={managePaths.source(s.id)} aria-label={`Edit ${s.name || s.url}`}>Edit</Link>
            <Link className="button danger-link" href={`${managePaths.source(s.id)}delete/`} aria-label={`Delete ${s.name || s.url}`}>Delete</Link>
          </div>
          <h3>Runs</h3>
          {(runs.get(s.id) ?? []).length === 0 ? <p className="muted">No runs yet.</p> : (
            <div className="table-wrap">
              <table className="data-table">
                <thead>
                  <tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">What it did</th></tr>
                </thead>
                <tbody>
                  {runs.get(s.id)!.map((r) => (
                    <tr key={r.id}>
                      <th scope="row">{r.id}</th>
                      <td data-label="Status">{r.status}</td>
                      <td data-label="Started">{when(r.started_at)}</td>
                      <td data-label="Finished">{when(r.finished_at)}</td>
                      <td data-label="What it did">
                        {r.error ? <span className="error-text">{r.error}</span> : r.due ? (r.due > new Date().toISOString() ? `${r.dry_run ? "Dry run, due" : "Due"} ${when(r.due)}` : "Waiting to start") : r.created === null && r.warnings.length === 1 ? r.warnings[0] : counts(r)}
                        {r.warnings.length > 0 && r.created !== null && (
                          <details>
                            <summary>{r.warnings.length === 1 ? "1 warning" : `${r.warnings.length} warnings`}</summary>
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
      <Section id="add" title="Add a source">
        <ManagedForm action={addSource} initial={sourceValues(null)} token={token} submit="Add source" label="New replication source">
          <SourceFields />
        </ManagedForm>
        <p className="muted small">To copy once, without keeping a source, from the command line:</p>
        <pre>npm run replicate -- --from https://other.example.org/ [--query &quot;owner:ntua&quot;]</pre>
      </Section>
      <p className="muted small"><Link href="/">Back to the stations</Link></p>
    </div>
  );
}
