import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { addLookup } from "@/app/manage/actions/lookups";
import ManagedForm from "@/components/manage/Form";
import LookupFields from "@/components/manage/LookupFields";
import { Done, ManageHeader, Pager, pageNumber, Section } from "@/components/manage/parts";
import { ensureSuperuser } from "@/lib/auth/permissions";
import { LOOKUP_FORMS, lookupOf, lookupReaders } from "@/lib/lookups";
import { guarded, lookupChoices, refusalTitle, superuserPageMetadata } from "@/lib/manage";
import { formToken } from "@/lib/site/form-token";
import { managePaths } from "@/lib/site/manage-paths";

type Params = Promise<{ lookup: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

const PAGE_SIZE = 100;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const name = lookupOf((await params).lookup);
  return name ? superuserPageMetadata((await getTranslations("manageLookups"))(`forms.${name}.title`)) : { title: await refusalTitle(404) };
}

/** `{site}/manage/lookups/{lookup}/`: its objects (in the API's order) and the form of a new one. */
export default async function LookupPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const [{ lookup }, query] = await Promise.all([params, searchParams]);
  const name = lookupOf(lookup);
  if (!name) notFound();
  const page = pageNumber(query.page);
  const { user, data } = await guarded(managePaths.lookup(name), async (u) => {
    ensureSuperuser(u);
    const reader = lookupReaders()[name];
    const [count, rows, choices] = await Promise.all([reader.count(), reader.page((page - 1) * PAGE_SIZE, PAGE_SIZE), lookupChoices()]);
    return { count, rows: rows as Record<string, unknown>[], variables: choices.variables };
  });
  const form = LOOKUP_FORMS[name];
  const t = await getTranslations("manageLookups");
  const title = t(`forms.${name}.title`);
  return (
    <div className="page manage narrow-wide">
      <ManageHeader crumbs={[{ label: t("title"), href: managePaths.lookups }, { label: title }]} title={title} lead={t("inAll", { count: data.count })} />
      <Done code={query.done} />
      <Section id="list" title={title}>
        {data.rows.length ? (
          <ul className="item-list">
            {data.rows.map((row) => (
              <li key={String(row.id)}><Link href={managePaths.lookupObject(name, Number(row.id))}>{form.label(row) || `#${row.id}`}</Link></li>
            ))}
          </ul>
        ) : <p className="muted">{t("noneYet")}</p>}
        <Pager page={page} pages={Math.ceil(data.count / PAGE_SIZE)} params={{}} path={managePaths.lookup(name)} />
      </Section>
      <Section id="add" title={t(`forms.${name}.add`)}>
        <ManagedForm action={addLookup.bind(null, name)} initial={{}} token={formToken(user.sessionId)} submit={t(`forms.${name}.submit`)} label={t(`forms.${name}.new`)}>
          <LookupFields fields={form.fields} variables={data.variables} />
        </ManagedForm>
      </Section>
    </div>
  );
}
