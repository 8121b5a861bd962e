import { useTranslations } from "next-intl";
import { requestAccess } from "@/app/manage/actions/access";
import ManagedForm, { TextArea } from "@/components/manage/Form";
import { MAX_TEXT, type AccessOffer } from "@/lib/access";
import { formToken } from "@/lib/site/form-token";

/**
 * The card of the station and series pages about the station's protected data (public.md §2),
 * for a logged-in user the page offers something (lib/access's accessOffer): "Request access" with
 * a short message field, or that their request is waiting; a user who reads the data only until an
 * approval's end is told the date and may ask again (an extension). `groupId`: the series page's
 * group, to return to after the request.
 */
export function AccessRequestCard({ stationId, groupId, offer, sessionId }: { stationId: number; groupId?: number; offer: AccessOffer; sessionId: string }) {
  const t = useTranslations("station");
  return (
    <section className="card" id="access" aria-labelledby="access-heading" data-access={offer.state}>
      <h2 id="access-heading">{t("protectedData")}</h2>
      {offer.until && <p>{t("accessUntil", { date: offer.until })}</p>}
      {offer.state === "pending" ? (
        <p className="message" role="status">{t("accessPending")}</p>
      ) : (
        <>
          <p>{offer.until ? t("accessExtend") : t("protectedIntro")}</p>
          <ManagedForm action={requestAccess.bind(null, stationId, groupId ?? 0)} initial={{}} token={formToken(sessionId)} submit={t("requestAccess")} label={t("requestAccess")}>
            <TextArea name="message" label={t("message")} rows={3} help={t("messageHelp", { max: MAX_TEXT })} />
          </ManagedForm>
        </>
      )}
    </section>
  );
}
