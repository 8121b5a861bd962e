import Link from "next/link";
import { useTranslations } from "next-intl";
import { Done, ManageHeader, Section } from "@/components/manage/parts";
import { managePaths } from "@/lib/site/manage-paths";
import { stationPath } from "@/lib/site/paths";

export interface ReplicatedStationInfo {
  id: number;
  name: string;
  code: string;
  source: { id: number; name: string };
}

/**
 * A replicated station's management page for a superuser (replication.md §2): it is read-only
 * here, so no forms, only where it comes from and the way to detach it.
 */
export default function ReplicatedStation({ station, done }: { station: ReplicatedStationInfo; done: string | string[] | undefined }) {
  const t = useTranslations("manageStation");
  const name = station.name || t("stationN", { id: String(station.id) });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: name }]} title={<>{name} {station.code && <span className="code">{station.code}</span>}</>}
        lead={t.rich("replicatedFrom", { source: station.source.name, link: (chunks) => <Link href={managePaths.source(station.source.id)}>{chunks}</Link> })}
        actions={<Link className="button secondary" href={stationPath(station.id)}>{t("publicPage")}</Link>} />
      <Done code={done} />
      <Section id="replication" title={t("replication")}>
        <p>{t.rich("copyOf", { source: station.source.name, strong: (chunks) => <strong>{chunks}</strong> })}</p>
        {/* What detaching a station means (replication.md §2), told before it is done. */}
        <p>{t("detachExplained")}</p>
        <p><Link className="button" href={managePaths.detach(station.id)}>{t("detachFromMore", { source: station.source.name })}</Link></p>
      </Section>
    </div>
  );
}
