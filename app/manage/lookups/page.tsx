import type { Metadata } from "next";
import Link from "next/link";
import { ManageHeader, Section } from "@/components/manage/parts";
import { ensureSuperuser } from "@/lib/auth/permissions";
import { LOOKUP_FORMS, LOOKUP_NAMES, lookupReaders } from "@/lib/lookups";
import { guarded, superuserPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";
import { formatCount } from "@/lib/site/numbers";

export function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata("Lookups");
}

/** `{site}/manage/lookups/` (management.md §2): the lookups of api.md §11, for superusers. */
export default async function LookupsPage() {
  const { data } = await guarded("/manage/lookups/", async (u) => {
    ensureSuperuser(u);
    const readers = lookupReaders();
    return Promise.all(LOOKUP_NAMES.map(async (name) => ({ name, count: await readers[name].count() })));
  });
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: "Lookups" }]} title="Lookups" lead="The lists that stations, time series and events refer to." />
      <Section id="lookups" title="Lists">
        <ul className="item-list">
          {data.map(({ name, count }) => (
            <li key={name}><Link href={managePaths.lookup(name)}>{LOOKUP_FORMS[name].title}</Link> <span className="muted small">{formatCount(count)}</span></li>
          ))}
        </ul>
      </Section>
    </div>
  );
}
