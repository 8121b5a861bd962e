import type { Metadata } from "next";
import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { ManageHeader, Section } from "@/components/manage/parts";
import { ensureSuperuser } from "@/lib/auth/permissions";
import { formatCountIn } from "@/lib/i18n";
import { LOOKUP_NAMES, lookupReaders } from "@/lib/lookups";
import { guarded, superuserPageMetadata } from "@/lib/manage";
import { managePaths } from "@/lib/site/manage-paths";

export async function generateMetadata(): Promise<Metadata> {
  return superuserPageMetadata((await getTranslations("manageLookups"))("title"));
}

/** `{site}/manage/lookups/` (management.md §2): the lookups of api.md §11, for superusers. */
export default async function LookupsPage() {
  const { data } = await guarded("/manage/lookups/", async (u) => {
    ensureSuperuser(u);
    const readers = lookupReaders();
    return Promise.all(LOOKUP_NAMES.map(async (name) => ({ name, count: await readers[name].count() })));
  });
  const [t, locale] = await Promise.all([getTranslations("manageLookups"), getLocale()]);
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title") }]} title={t("title")} lead={t("lead")} />
      <Section id="lookups" title={t("lists")}>
        <ul className="item-list">
          {data.map(({ name, count }) => (
            <li key={name}><Link href={managePaths.lookup(name)}>{t(`forms.${name}.title`)}</Link> <span className="muted small">{formatCountIn(locale, count)}</span></li>
          ))}
        </ul>
      </Section>
    </div>
  );
}
