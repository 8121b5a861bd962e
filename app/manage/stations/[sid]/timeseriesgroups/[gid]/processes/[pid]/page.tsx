import type { Metadata } from "next";
import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { runProcess, saveProcess } from "@/app/manage/actions/processing";
import ManagedForm from "@/components/manage/Form";
import { Done, ManageHeader, RunStatus, Section } from "@/components/manage/parts";
import { ProcessFields } from "@/components/manage/ProcessFields";
import { guarded, processForEditing, stationGroupChoices, stationPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";
import { periodCount, processValues } from "@/lib/processing";
import { groupTitleIn } from "@/lib/site/group-title";
import { zoneOffsetMinutes } from "@/lib/site/time";

type Params = Promise<{ sid: string; gid: string; pid: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageSeriesProcess"))("titleEdit"), params);
}

/**
 * `{site}/manage/stations/{sid}/timeseriesgroups/{gid}/processes/{pid}/` (management.md §2): a
 * process's form (enable or disable it there), run now or from scratch, and its last runs with
 * their errors.
 */
export default async function ManageProcessPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const [{ sid: sidText, gid: gidText, pid: pidText }, query] = await Promise.all([params, searchParams]);
  const [sid, gid, pid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0, pathId(pidText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/processes/${pidText}/`, async (u) => {
    const [page, groups] = await Promise.all([processForEditing(u, sid, gid, pid), stationGroupChoices(sid)]);
    return { ...page, groups: groups.filter((g) => g.value !== String(gid)) };
  });
  const { station, group, variable, process, description, runs, runCount, groups } = data;
  const token = formToken(user.sessionId);
  const [t, tc, locale] = await Promise.all([getTranslations("manageSeriesProcess"), getTranslations("common"), getLocale()]);
  const stationName = station.name || tc("station", { id: sid });
  const groupName = groupTitleIn(locale, { id: gid, name: group.name, variable });
  const initial = processValues(process);
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: stationName, href: managePaths.station(sid) }, { label: groupName, href: `${managePaths.group(sid, gid)}#processes` }, { label: t("crumb", { id: pid }) }]}
        title={description} lead={process.enabled ? t("leadEnabled") : t("leadDisabled")}
        actions={<Link className="button danger-link" href={`${managePaths.process(sid, gid, pid)}delete/`}>{t("deleteProcess")}</Link>} />
      <Done code={query.done} />

      <Section id="runs" title={t("sectionRuns")}>
        {process.enabled ? (
          <div className="form-actions">
            <ManagedForm action={runProcess.bind(null, sid, gid, pid)} initial={{}} token={token} submit={t("runNow")} label={t("runNow")} className="inline-form" />
            <ManagedForm action={runProcess.bind(null, sid, gid, pid)} initial={{}} token={token} submit={t("runFromScratch")} label={t("runFromScratch")} className="inline-form">
              <input type="hidden" name="from_scratch" value="true" />
            </ManagedForm>
          </div>
        ) : <p className="muted">{t("enableToRun")}</p>}
        {runs.length === 0 ? <p className="muted">{t("noRuns")}</p> : (
          <ol className="item-list run-list">
            {runs.map((r) => <li key={r.id} id={`run-${r.id}`}><RunStatus run={r} offset={zoneOffsetMinutes(station.display_timezone) ?? 0} /></li>)}
          </ol>
        )}
        {runCount > runs.length && <p className="muted small">{t("newestRuns", { shown: runs.length, total: runCount })}</p>}
      </Section>

      <Section id="details" title={t("sectionProcess")}>
        <ManagedForm action={saveProcess.bind(null, sid, gid, pid)} initial={initial} token={token} submit={t("saveProcess")} label={t("sectionProcess")}>
          <ProcessFields type={process.definition.type} groups={groups} periods={periodCount(initial)} />
        </ManagedForm>
      </Section>
    </div>
  );
}
