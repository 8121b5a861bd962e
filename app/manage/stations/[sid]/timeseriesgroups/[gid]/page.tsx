import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { addProcess, runProcess } from "@/app/manage/actions/processing";
import { addSeries, saveGroup, saveSeries } from "@/app/manage/actions/series";
import { GroupFields, SeriesFields } from "@/components/manage/fields";
import ManagedForm from "@/components/manage/Form";
import { Done, ManageHeader, Problem, RunStatus, Section } from "@/components/manage/parts";
import { ProcessFields } from "@/components/manage/ProcessFields";
import { settings } from "@/lib/config";
import {
  groupForEditing, groupValues, guarded, lookupChoices, processesForEditing, seriesValues, stationGroupChoices, stationPageMetadata,
} from "@/lib/manage";
import { describeProcess, processesWritingGroup } from "@/lib/processing";
import { formToken } from "@/lib/site/form-token";
import { requestLocale } from "@/lib/site/locale";
import { managePaths } from "@/lib/site/manage-paths";
import { groupPath } from "@/lib/site/paths";
import { pathId, seriesLabel, timeStepLabel } from "@/lib/frontend";
import { processAddForms } from "@/lib/processing";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { groupTitleIn } from "@/lib/site/group-title";
import { typeWord } from "@/app/manage/stations/[sid]/timeseriesgroups/[gid]/words";

type Params = Promise<{ sid: string; gid: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata((await getTranslations("manageSeriesGroup"))("titleEdit"), params);
}


/**
 * `{site}/manage/stations/{sid}/timeseriesgroups/{gid}/` (management.md §2): the group form and
 * its time series (add, edit, delete, upload; record count and range of each).
 */
export default async function ManageGroupPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const [{ sid: sidText, gid: gidText }, query] = await Promise.all([params, searchParams]);
  const [sid, gid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0];
  const { user, data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/`, async (u) => {
    const [page, choices] = await Promise.all([groupForEditing(u, sid, gid), lookupChoices()]);
    // The unit as the process pages write it ("range 0…10 m"), not as the unit select labels it ("m (Metres)").
    const unit = choices.units.find((c) => c.id === page.group.unitId)?.symbol ?? "";
    const [processes, groups, writers] = await Promise.all([processesForEditing(gid, unit), stationGroupChoices(sid), processesWritingGroup(gid)]);
    return { ...page, choices, processes, groups: groups.filter((g) => g.value !== String(gid)), writers, unit };
  });
  const { station, group, series, choices, processes, groups, writers, unit } = data;
  const [t, tc, tp, locale] = await Promise.all([getTranslations("manageSeriesGroup"), getTranslations("common"), getTranslations("manageSeriesProcess"), requestLocale()]);
  // The series' types (Initial, Checked, …) in the page's language.
  const label = (s: (typeof series)[number]) => seriesLabel({ ...s, type: typeWord(tc, s.type) });
  const token = formToken(user.sessionId);
  const offset = zoneOffsetMinutes(station.display_timezone) ?? 0;
  const stationName = station.name || tc("station", { id: sid });
  const variable = choices.variables.find((v) => v.id === group.variableId)?.label ?? "";
  const title = groupTitleIn(locale, { id: gid, name: group.name, variable });
  const units = choices.units.map((u) => ({ id: u.id, label: u.label }));
  const taken = new Set(series.map((s) => s.type));
  const nextType = ["Initial", "Checked", "Regularized"].find((t) => !taken.has(t)) ?? "Aggregated";
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: stationName, href: managePaths.station(sid) }, { label: title }]} title={title} lead={`${stationName} · ${variable}`}
        actions={<>
          <Link className="button secondary" href={groupPath(sid, gid)}>{t("publicPage")}</Link>
          <Link className="button danger-link" href={`${managePaths.group(sid, gid)}delete/`}>{t("deleteGroup")}</Link>
        </>} />
      <Done code={query.done} />
      <Problem code={query.problem} />

      <Section id="details" title={t("sectionGroup")}>
        <ManagedForm action={saveGroup.bind(null, sid, gid)} initial={groupValues(group)} token={token} submit={t("saveGroup")} label={t("groupFormLabel")}>
          <GroupFields variables={choices.variables} units={units} />
        </ManagedForm>
      </Section>

      <Section id="series" title={t("sectionSeries")}>
        {series.length === 0 && <p className="muted">{t("noSeries")}</p>}
        <ul className="series-list">
          {series.map((s) => (
            <li key={s.id} id={`series-${s.id}`} className="series-item">
              <div className="series-head">
                <h3>{label(s)}</h3>
                <span className="muted small">
                  {s.timeStep ? timeStepLabel(s.timeStep) : tc("irregular")} · {s.publiclyAvailable ? t("public") : t("private")} · {t("records", { count: s.count })}
                  {s.first !== null && s.last !== null && <> · {formatDateTime(s.first, offset)} – {formatDateTime(s.last, offset)} ({offsetLabel(offset)})</>}
                </span>
              </div>
              <p className="item-actions">
                {writers.has(s.id) ? (
                  // What is uploaded here would be replaced at the processes' next run (the upload page says so too).
                  <span className="muted small">
                    {t.rich("writtenBy", {
                      processes: () => writers.get(s.id)!.map((w, i) => (
                        <span key={w.process.id}>{i > 0 && "; "}<Link href={managePaths.process(w.stationId, w.process.groupId, w.process.id)}>{describeProcess(w.process.definition, { unit, targetGroupName: title, locale })}</Link></span>
                      )),
                    })}
                  </span>
                ) : (
                  <Link className="button" href={managePaths.upload(sid, gid, s.id)}>{t("uploadRecords")}</Link>
                )}
                {s.count > 0 && <Link className="button secondary" href={`${groupPath(sid, gid)}?series=${s.id}`}>{t("chart")}</Link>}
                <Link className="button secondary" href={managePaths.edit(sid, gid, s.id)}>{t("qualityControl")}</Link>
                <Link className="button secondary danger-link" href={`${managePaths.series(sid, gid, s.id)}delete/`}>{t("delete")}</Link>
              </p>
              <details className="add-form">
                <summary>{t("editSeries")}</summary>
                <ManagedForm action={saveSeries.bind(null, sid, gid, s.id)} initial={seriesValues(s)} token={token} submit={t("saveSeries")} label={t("seriesFormLabel", { label: label(s) })}>
                  <SeriesFields />
                </ManagedForm>
              </details>
            </li>
          ))}
        </ul>
        <details className="add-form" open={series.length === 0}>
          <summary>{t("addSeries")}</summary>
          <ManagedForm action={addSeries.bind(null, sid, gid)} initial={{ type: nextType, time_step: "", publicly_available: String(settings().defaultPubliclyAvailable) }} token={token}
            submit={t("addSeriesSubmit")} label={t("newSeriesLabel")}>
            <SeriesFields />
          </ManagedForm>
        </details>
      </Section>

      <Section id="processes" title={t("sectionProcesses")}>
        <p className="muted small">{t("processesHelp")}</p>
        {processes.length === 0 && <p className="muted">{t("noProcesses")}</p>}
        <ul className="item-list process-list">
          {processes.map((p) => (
            <li key={p.row.id} id={`process-${p.row.id}`}>
              <div>
                <Link href={managePaths.process(sid, gid, p.row.id)}>{p.description}</Link>
                {!p.row.enabled && <span className="badge">{t("disabled")}</span>}
                <div className="small"><RunStatus run={p.lastRun} offset={offset} /></div>
              </div>
              <span className="item-actions">
                <Link href={managePaths.process(sid, gid, p.row.id)}>{t("editAndRuns")}</Link>
                {p.row.enabled && (
                  <ManagedForm action={runProcess.bind(null, sid, gid, p.row.id)} initial={{}} token={token} submit={t("runNow")} label={t("runProcessLabel", { id: p.row.id })} className="inline-form" />
                )}
                <Link className="danger-link" href={`${managePaths.process(sid, gid, p.row.id)}delete/`}>{t("delete")}</Link>
              </span>
            </li>
          ))}
        </ul>
        {/* A group has at most one checks process (processing.md §1): no "Add checks" once it has one. */}
        {processAddForms(processes.map((p) => p.row.definition)).map((add) => (
          <details key={add.type} className="add-form">
            <summary>{tp(`types.${add.type}.summary`)}</summary>
            <ManagedForm action={addProcess.bind(null, sid, gid)} token={token} label={tp(`types.${add.type}.label`)} initial={add.initial} submit={tp(`types.${add.type}.submit`)}>
              <ProcessFields type={add.type} groups={groups} periods={1} />
            </ManagedForm>
          </details>
        ))}
      </Section>
    </div>
  );
}
