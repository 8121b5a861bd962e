import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { cache } from "react";
import SynopticView from "@/components/synoptic/SynopticView";
import { durationParts } from "@/components/synoptic/types";
import { settings } from "@/lib/config";
import { SLUG, synopticPage } from "@/lib/synoptic";
import { currentUser } from "@/lib/site/current-user";
import { offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { Breadcrumbs } from "@/components/site/Breadcrumbs";

type Params = Promise<{ slug: string }>;

const load = cache(async (slug: string) => (SLUG.test(slug) ? synopticPage(slug, await currentUser()) : null));

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const page = await load((await params).slug);
  return { title: page ? page.group.name : (await getTranslations("common"))("pageNotFound") };
}

/** `{site}/synoptic/{slug}/` (synoptic.md §2): the map and table of the group's latest values, updating themselves. */
export default async function SynopticGroupPage({ params }: { params: Params }) {
  const page = await load((await params).slug);
  if (!page) notFound();
  const { group, stations, precisions, canEdit } = page;
  const offset = zoneOffsetMinutes(group.displayTimezone) ?? 0;
  const { mapTileUrl, mapTileAttribution, mapDefaultViewport } = settings();
  const t = await getTranslations("synoptic");
  const age = durationParts(group.freshTimeLimit);
  return (
    <div className="page">
      <Breadcrumbs crumbs={[{ label: t("title"), href: "/synoptic/" }, { label: group.name }]} />
      <header className="page-header">
        <h1>{group.name}</h1>
        <p className="lead">
          {t("groupLead", { count: stations.length, age: t(age.unit, { count: age.count }) })}
          {canEdit && <> <Link href={`/manage/synoptic/${group.id}/`}>{t("edit")}</Link></>}
        </p>
      </header>
      <SynopticView
        groupId={group.id}
        slug={group.slug}
        initial={stations}
        offsetMinutes={offset}
        zoneLabel={`${offsetLabel(offset)} (${group.displayTimezone})`}
        precisions={precisions}
        tileUrl={mapTileUrl}
        tileAttribution={mapTileAttribution}
        defaultBbox={mapDefaultViewport as [number, number, number, number]}
      />
    </div>
  );
}
