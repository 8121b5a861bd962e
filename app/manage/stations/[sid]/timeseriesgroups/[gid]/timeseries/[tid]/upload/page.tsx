import type { Metadata } from "next";
import Link from "next/link";
import { ManageHeader } from "@/components/manage/parts";
import UploadForm from "@/components/manage/UploadForm";
import { settings } from "@/lib/config";
import { findSeriesAt, writableSeries } from "@/lib/series";
import { guarded, processesForEditing, stationPageMetadata } from "@/lib/manage";
import { describeProcesses, processesFedBy, processesWriting, seriesOfGroups } from "@/lib/processing";
import { typeName } from "@/lib/domain/timeseries-types";
import { managePaths } from "@/lib/site/manage-paths";
import { groupPath, seriesApiPath } from "@/lib/site/paths";
import { pathId, seriesLabel } from "@/lib/frontend";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { groupTitle } from "@/lib/site/names";
import { countText } from "@/lib/site/numbers";

type Params = Promise<{ sid: string; gid: string; tid: string }>;

export function generateMetadata({ params }: { params: Promise<{ sid: string }> }): Promise<Metadata> {
  return stationPageMetadata("Upload records", params);
}


/** `{site}/manage/stations/{sid}/timeseriesgroups/{gid}/timeseries/{tid}/upload/` (management.md §2). */
export default async function UploadPage({ params }: { params: Params }) {
  const { sid: sidText, gid: gidText, tid: tidText } = await params;
  const [sid, gid, tid] = [pathId(sidText) ?? 0, pathId(gidText) ?? 0, pathId(tidText) ?? 0];
  const { data } = await guarded(`/manage/stations/${sidText}/timeseriesgroups/${gidText}/timeseries/${tidText}/upload/`, async (u) => {
    const s = await writableSeries(u, { stationId: sid, groupId: gid, seriesId: tid });
    const row = (await findSeriesAt({ stationId: sid, groupId: gid, seriesId: tid }))!;
    const [all, series, writers] = await Promise.all([processesForEditing(gid, s.unit.symbol), seriesOfGroups([gid]), processesWriting(tid, gid)]);
    // Only the processes this upload queues (those its records feed, directly or through the group's chain), not every process of the group.
    const fed = new Set(processesFedBy(tid, all.map((p) => p.row), series));
    const processes = all.filter((p) => fed.has(p.row.id));
    const descriptions = await describeProcesses(writers.map(({ process: p }) => p.definition), () => s.unit.symbol);
    const writtenBy = writers.map(({ process: p, stationId }, i) => ({ href: managePaths.process(stationId, p.groupId, p.id), description: descriptions[i] }));
    return { s, label: seriesLabel({ type: typeName(row.type), name: row.name, timeStep: row.timeStep }), processes, writtenBy };
  });
  const { s, label, processes, writtenBy } = data;
  const offset = zoneOffsetMinutes(s.station.displayTimezone) ?? 0;
  const groupName = groupTitle({ id: gid, name: s.group.name, variable: s.variable.descr });
  const chartHref = `${groupPath(sid, gid)}?series=${tid}`;
  return (
    <div className="page manage">
      <ManageHeader crumbs={[{ label: s.station.name || `Station ${sid}`, href: managePaths.station(sid) }, { label: groupName, href: managePaths.group(sid, gid) }, { label: "Upload" }]}
        title={`Upload records to ${label}`} lead={`${s.group.name ? `${s.group.name} · ` : ""}${s.variable.descr} (${s.unit.symbol})`} />
      <section className="card">
        <p className="muted">
          Stored now: {countText(s.recordCount, "record", "records")}
          {s.firstTimestamp !== null && s.lastTimestamp !== null && <>, from {formatDateTime(s.firstTimestamp, offset)} to {formatDateTime(s.lastTimestamp, offset)} ({offsetLabel(offset)})</>}.
          {s.recordCount > 0 && <> <Link href={chartHref}>Chart</Link></>}
        </p>
        {writtenBy.length > 0 && (
          <div className="message warning" role="note">
            <p>
              Automatic processing writes this time series:{" "}
              {writtenBy.map((w, i) => <span key={w.href}>{i > 0 && "; "}<Link href={w.href}>{w.description}</Link></span>)}.
              {" "}Its runs replace the records here with what they compute, so records uploaded here may be overwritten; upload into the series it reads instead.
            </p>
          </div>
        )}
        <noscript><p className="message error">Uploading needs JavaScript (it shows the dry run and the upload&apos;s progress). The API takes the same upload: <code>POST {seriesApiPath(sid, gid, tid)}data/</code>.</p></noscript>
        <UploadForm apiPath={`${seriesApiPath(sid, gid, tid)}data/`} defaultZone={s.station.displayTimezone} displayOffset={offset} chartHref={chartHref} maxBytes={settings().maxUploadSize}
          processesApi={`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`} processes={Object.fromEntries(processes.map((p) => [p.row.id, p.description]))} />
      </section>
    </div>
  );
}
