import { settings } from "@/lib/config";
import { Prisma, type Tx } from "@/lib/db";
import { enqueueSql, type Job } from "@/lib/jobs/queue";
import { DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
import { recipientLocales, sendMail, serviceSender } from "@/lib/mail";

/**
 * The e-mails of access requests (public.md §2): to the station's maintainers on a new request,
 * to the requester on approval, denial, a week before the access ends and when it has ended.
 * Each is queued as a job (pool "mail") in the transaction of the change it tells of, so that it
 * goes if and only if the change commits, and is retried when the SMTP server is down.
 */
export const MAIL_KIND = "access.mail";
const MAIL_ATTEMPTS = 8;

export type MailEvent = "requested" | "approved" | "denied" | "reminder" | "expired";

export interface AccessMail {
  to: string;
  subject: string;
  text: string;
}

/** What the texts say of a request. */
export interface MailFacts {
  requestId: number;
  stationId: number;
  stationName: string;
  username: string;
  email: string;
  message: string;
  /** YYYY-MM-DD, the first day without access; null: no end */
  validUntil: string | null;
  reason: string;
}

function siteName(site: string): string {
  if (settings().siteName) return settings().siteName;
  try {
    return site ? new URL(site).host : "Enhydris";
  } catch {
    return "Enhydris";
  }
}

/**
 * A text someone typed, quoted line by line as mail clients quote ("> "), so that it cannot pass
 * for the service's own words (a signature, a link "to approve").
 */
export function quoted(text: string): string {
  return text.split(/\r\n|\r|\n/).map((line) => (line ? `> ${line}` : ">")).join("\n");
}

/** The text of one e-mail in a language (public.md §3); `site` is the site's root for links ("" for none). */
export function accessMailText(event: MailEvent, facts: MailFacts, site: string, locale: Locale = DEFAULT_LOCALE): Omit<AccessMail, "to"> {
  const t = translator(locale, "mailAccessRequest");
  const station = facts.stationName ? t("stationNamed", { name: facts.stationName }) : `#${facts.stationId}`;
  const name = siteName(site);
  const stationLink = site ? t("stationLink", { link: `${site}/stations/${facts.stationId}/` }) : "\n";
  const date = facts.validUntil ?? "";
  switch (event) {
    case "requested":
      return {
        subject: t("requestedSubject", { station }),
        text: t("requestedText", { user: t("user", { username: facts.username }), email: facts.email ? ` <${facts.email}>` : "", site: name, station })
          + (facts.message ? t("requestedMessage", { message: quoted(facts.message) }) : t("requestedNoMessage"))
          + (site ? t("approveOn", { link: `${site}/manage/` }) : t("approveOnManagement"))
          + t("approveApi", { stationId: String(facts.stationId), requestId: String(facts.requestId) })
          + t("requestedWhy"),
      };
    case "approved":
      return {
        subject: t("approvedSubject", { station }),
        text: t("approvedText", { site: name, station, until: facts.validUntil ? t("untilDate", { date }) : t("noEnd") })
          + (facts.validUntil ? t("approvedReminder") : "") + stationLink,
      };
    case "denied":
      return {
        subject: t("deniedSubject", { station }),
        text: t("deniedText", { site: name, station, reason: quoted(facts.reason) }),
      };
    case "reminder":
      return {
        subject: t("reminderSubject", { station, date }),
        text: t("reminderText", { site: name, station, date }) + stationLink,
      };
    case "expired":
      return {
        subject: t("expiredSubject", { station }),
        text: t("expiredText", { site: name, station, date }) + stationLink,
      };
  }
}

/**
 * Queues one e-mail per recipient, in the caller's transaction, each in its recipient's language:
 * the account's, else `locale` (the language of the request that caused it), else English.
 */
export async function queueAccessMails(tx: Tx, event: MailEvent, facts: MailFacts, recipients: readonly string[], site: string, locale: Locale = DEFAULT_LOCALE): Promise<void> {
  const addresses = [...new Set(recipients.filter((r) => r !== ""))];
  const locales = await recipientLocales(addresses, locale, tx);
  const texts = new Map<Locale, Omit<AccessMail, "to">>();
  // One key per request, event and recipient (and the instant: a request can be approved twice, after an expiry).
  const stamp = Date.now();
  for (const [i, to] of addresses.entries()) {
    const language = locales.get(to) ?? locale;
    if (!texts.has(language)) texts.set(language, accessMailText(event, facts, site, language));
    const { subject, text } = texts.get(language)!;
    await tx.$queryRaw(enqueueSql({ kind: MAIL_KIND, key: `access-mail:${facts.requestId}:${event}:${stamp}:${i}`, payload: { to, subject, text }, maxAttempts: MAIL_ATTEMPTS }));
  }
}

/** The job that sends one queued e-mail; a failure is retried by the queue. */
export async function sendAccessMail(job: Job): Promise<unknown> {
  const { to, subject, text } = job.payload as AccessMail;
  await sendMail({ to, from: serviceSender(), subject, text });
  return { sent: 1 };
}

/**
 * Whom a new request is told to: the station's active maintainers with an address; else its
 * creator; else (neither has an address) the active superusers, who administer the site.
 */
export async function requestRecipients(tx: Tx, stationId: number): Promise<string[]> {
  const rows = await tx.$queryRaw<{ email: string }[]>(Prisma.sql`
    SELECT u.email FROM station_maintainer m JOIN users u ON u.id = m.user_id
    WHERE m.station_id = ${stationId} AND u.is_active = ${true} AND u.email <> '' ORDER BY u.id`);
  if (rows.length) return rows.map((r) => r.email);
  const creator = await tx.$queryRaw<{ email: string }[]>(Prisma.sql`
    SELECT u.email FROM station s JOIN users u ON u.id = s.creator_id
    WHERE s.id = ${stationId} AND u.is_active = ${true} AND u.email <> ''`);
  if (creator.length) return creator.map((r) => r.email);
  const admins = await tx.$queryRaw<{ email: string }[]>(Prisma.sql`
    SELECT email FROM users WHERE is_superuser = ${true} AND is_active = ${true} AND email <> '' ORDER BY id`);
  return admins.map((r) => r.email);
}
