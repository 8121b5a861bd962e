import type { Metadata } from "next";
import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { detach } from "@/app/manage/replication/actions";
import ManagedForm from "@/components/manage/Form";
import { ManageHeader } from "@/components/manage/parts";
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
  return manageMetadata((await getTranslations("manageStation"))("detachTitle"), (user) => detachableStation(user, sid).catch(notReplicated));
}

/** `{site}/manage/stations/{sid}/detach/` (superusers): the confirmation of a replicated station's detach. */
export default async function DetachStationPage({ params }: { params: Params }) {
  const { sid: sidText } = await params;
  const sid = pathId(sidText) ?? 0;
  const t = await getTranslations("manageStation");
  const { user, data: station } = await guarded(`/manage/stations/${sidText}/detach/`, (u) => detachableStation(u, sid).catch(notReplicated));
  if (!station) {
    return (
      <div className="page manage narrow-wide">
        <ManageHeader crumbs={[{ label: t("stationN", { id: String(sid) }), href: managePaths.station(sid) }, { label: t("detach") }]} title={t("detachAStation")} />
        <section className="card" role="status">
          <p>{t.rich("notReplicated", { link: (chunks) => <Link href={managePaths.station(sid)}>{chunks}</Link> })}</p>
        </section>
      </div>
    );
  }
  const name = station.name || t("stationN", { id: String(station.id) });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: name, href: managePaths.station(sid) }, { label: t("detach") }]} title={t("detachName", { name })} />
      <section className="card confirm-detach" aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">{t("detachQuestion", { name, source: station.source.name })}</h2>
        <p>{t("detachExplained")}</p>
        <ManagedForm action={detach.bind(null, sid)} initial={{}} token={formToken(user.sessionId)} submit={t("detachFrom", { source: station.source.name })}
          label={t("detachFrom", { source: station.source.name })} />
        <p><Link href={managePaths.station(sid)}>{t("cancel")}</Link></p>
      </section>
    </div>
  );
}
