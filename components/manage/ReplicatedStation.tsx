import Link from "next/link";
import { Done, ManageHeader, Section } from "@/components/manage/parts";
import { managePaths } from "@/lib/site/manage-paths";
import { stationPath } from "@/lib/site/paths";

export interface ReplicatedStationInfo {
  id: number;
  name: string;
  code: string;
  source: { id: number; name: string };
}

/** What detaching a station means (replication.md §2), told before it is done. */
export const DETACH_EXPLAINED = "Later runs of the source no longer update this station (nor copy it again), and it becomes a station of this instance that its editors can change here. It cannot be attached again.";

/**
 * A replicated station's management page for a superuser (replication.md §2): it is read-only
 * here, so no forms, only where it comes from and the way to detach it.
 */
export default function ReplicatedStation({ station, done }: { station: ReplicatedStationInfo; done: string | string[] | undefined }) {
  const name = station.name || `Station ${station.id}`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: name }]} title={<>{name} {station.code && <span className="code">{station.code}</span>}</>}
        lead={<>Replicated from <Link href={managePaths.source(station.source.id)}>{station.source.name}</Link>: read-only here.</>}
        actions={<Link className="button secondary" href={stationPath(station.id)}>Public page</Link>} />
      <Done code={done} />
      <Section id="replication" title="Replication">
        <p>This station is a copy of a station of another instance, kept up to date by the runs of <strong>{station.source.name}</strong>; it cannot be edited here.</p>
        <p>{DETACH_EXPLAINED}</p>
        <p><Link className="button" href={managePaths.detach(station.id)}>Detach from {station.source.name}…</Link></p>
      </Section>
    </div>
  );
}
