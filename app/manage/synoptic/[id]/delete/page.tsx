import "@/components/synoptic/synoptic.css";
import type { Metadata } from "next";
import Link from "next/link";
import { synopticGroupContents } from "@/lib/synoptic";
import { editable, synopticPageMetadata } from "@/app/manage/synoptic/guard";
import { deleteSynopticGroupAction } from "@/app/manage/synoptic/actions";
import { formToken, TOKEN_FIELD } from "@/lib/site/form-token";
import { FORM_EXPIRED } from "@/lib/site/forms";

type Params = Promise<{ id: string }>;

export function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return synopticPageMetadata("Delete synoptic group", params);
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** `{site}/manage/synoptic/{id}/delete/`: says what goes with it, then deletes on a POST (management.md). */
export default async function DeleteSynopticGroupPage({ params, searchParams }: { params: Params; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { user, group } = await editable((await params).id, (id) => `/manage/synoptic/${id}/delete/`);
  const contents = await synopticGroupContents(group.id);
  return (
    <div className="narrow">
      <div className="card">
        <h1>Delete “{group.name}”?</h1>
        {(await searchParams).expired !== undefined && <p className="message error" role="alert">{FORM_EXPIRED}</p>}
        <p>
          Its page /synoptic/{group.slug}/ goes, with its {count(contents.stations, "station", "stations")} and {count(contents.series, "variable", "variables")} shown,
          their limits and alarms, and {count(contents.warnings, "recorded warning", "recorded warnings")}. No e-mail is sent about it any more.
          The stations, their time series and their data stay.
        </p>
        <form action={deleteSynopticGroupAction} className="form-footer" aria-label="Delete the synoptic group">
          <input type="hidden" name={TOKEN_FIELD} value={formToken(user.sessionId)} />
          <input type="hidden" name="id" value={group.id} />
          <button type="submit" className="danger">Delete the synoptic group</button>{" "}
          <Link href={`/manage/synoptic/${group.id}/`}>Cancel</Link>
        </form>
      </div>
    </div>
  );
}
