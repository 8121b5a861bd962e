import type { Metadata } from "next";
import Link from "next/link";
import { detach } from "@/app/manage/replication/actions";
import ManagedForm from "@/components/manage/Form";
import { ManageHeader } from "@/components/manage/parts";
import { DETACH_EXPLAINED } from "@/components/manage/ReplicatedStation";
import { detachableStation } from "@/lib/replication";
import { Conflict } from "@/lib/domain/errors";
import { formToken } from "@/lib/site/form-token";
import { guarded, manageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { pathId } from "@/lib/frontend";

type Params = Promise<{ sid: string }>;

/** A station detached meanwhile (409 of the service): the page says so instead of offering the form. */
function notReplicated(error: unknown): null {
  if (error instanceof Conflict) return null;
  throw error;
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const sid = pathId((await params).sid) ?? 0;
  return manageMetadata("Detach station", (user) => detachableStation(user, sid).catch(notReplicated));
}

/** `{site}/manage/stations/{sid}/detach/` (superusers): the confirmation of a replicated station's detach. */
export default async function DetachStationPage({ params }: { params: Params }) {
  const { sid: sidText } = await params;
  const sid = pathId(sidText) ?? 0;
  const { user, data: station } = await guarded(`/manage/stations/${sidText}/detach/`, (u) => detachableStation(u, sid).catch(notReplicated));
  if (!station) {
    return (
      <div className="page manage narrow-wide">
        <ManageHeader crumbs={[{ label: `Station ${sid}`, href: managePaths.station(sid) }, { label: "Detach" }]} title="Detach a station" />
        <section className="card" role="status">
          <p>This station is not replicated from another instance: someone may have detached it already. <Link href={managePaths.station(sid)}>Its page</Link>.</p>
        </section>
      </div>
    );
  }
  const name = station.name || `Station ${station.id}`;
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: name, href: managePaths.station(sid) }, { label: "Detach" }]} title={`Detach ${name}`} />
      <section className="card confirm-detach" aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">Detach {name} from {station.source.name}?</h2>
        <p>{DETACH_EXPLAINED}</p>
        <ManagedForm action={detach.bind(null, sid)} initial={{}} token={formToken(user.sessionId)} submit={`Detach from ${station.source.name}`} label={`Detach from ${station.source.name}`} />
        <p><Link href={managePaths.station(sid)}>Cancel</Link></p>
      </section>
    </div>
  );
}
