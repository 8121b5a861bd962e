import Link from "next/link";
import { useTranslations } from "next-intl";
import { getTranslations } from "next-intl/server";
import ManagedForm from "@/components/manage/Form";
import type { contentsText } from "@/lib/stations";
import type { FormState } from "@/lib/site/form-state";

type Contents = Parameters<typeof contentsText>[0];

const CONTENT_KINDS = ["groups", "series", "records", "files", "images", "events"] as const;

/**
 * What a delete takes with it, in the page's language: "3 time series groups, 7 time series,
 * 1,051,200 records" (lib/stations' contentsText in English); "" when it takes nothing.
 */
export async function contentsIn(contents: Contents): Promise<string> {
  const t = await getTranslations("manageDelete");
  return CONTENT_KINDS.filter((kind) => (contents[kind] ?? 0) > 0).map((kind) => t(`contents.${kind}`, { count: contents[kind]! })).join(", ");
}

/**
 * The confirmation of a delete (management.md §1 "Deletes say what they take"): what goes, what
 * goes with it, and a POST button; a refusal (a lookup still in use, 409) is shown here. When the
 * delete is already known to be refused (`blocked`: why), the page says so instead, without a
 * button (the POST of a form opened earlier is still refused, with the same reason).
 * `what` names the object in the page's language: in English without an article (`station “Arta”`),
 * in Greek in the nominative with its article (`ο σταθμός «Άρτα»`), as the sentences around it expect.
 */
export default function ConfirmDelete({ what, takes, note, action, token, back, blocked }: {
  what: string;
  takes: string;
  note?: string;
  action: (state: FormState, form: FormData) => Promise<FormState>;
  token: string;
  back: string;
  blocked?: string | null;
}) {
  const t = useTranslations("manageDelete");
  if (blocked) {
    return (
      <section className="card confirm-delete" aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">{t("cannot", { what })}</h2>
        <p className="message error" role="note">{blocked}</p>
        <p><Link href={back}>{t("back")}</Link></p>
      </section>
    );
  }
  return (
    <section className="card confirm-delete" aria-labelledby="confirm-heading">
      <h2 id="confirm-heading">{t("question", { what })}</h2>
      <p>{takes ? t.rich("alsoDeletes", { takes, strong: (chunks) => <strong>{chunks}</strong> }) : t("nothingElse")}</p>
      {note && <p className="muted">{note}</p>}
      <ManagedForm action={action} initial={{}} token={token} submit={t("submit", { what })} danger label={t("submit", { what })} />
      <p><Link href={back}>{t("cancel")}</Link></p>
    </section>
  );
}
