import { settings } from "@/lib/config";
import { Prisma, type Tx } from "@/lib/db";
import { enqueueSql, type Job } from "@/lib/jobs/queue";
import { sendMail, serviceSender } from "@/lib/mail";

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

const quoted = (name: string, id: number) => (name ? `"${name}"` : `#${id}`);

function siteName(site: string): string {
  if (settings().siteName) return settings().siteName;
  try {
    return site ? new URL(site).host : "Enhydris";
  } catch {
    return "Enhydris";
  }
}

const until = (date: string | null) => (date ? `until ${date} (the access ends when that day begins, UTC)` : "with no end date");

/** The text of one e-mail; `site` is the site's root for links ("" for none). */
export function accessMailText(event: MailEvent, facts: MailFacts, site: string): Omit<AccessMail, "to"> {
  const station = quoted(facts.stationName, facts.stationId);
  const name = siteName(site);
  const stationLink = site ? `\n\nThe station: ${site}/stations/${facts.stationId}/\n` : "\n";
  switch (event) {
    case "requested":
      return {
        subject: `Access request for station ${station}`,
        text: `The user "${facts.username}"${facts.email ? ` <${facts.email}>` : ""} asks on ${name} to read the protected data of station ${station}.\n`
          + (facts.message ? `\nTheir message:\n\n${facts.message}\n` : "\nThey left no message.\n")
          + (site ? `\nApprove or deny it on ${site}/manage/` : "\nApprove or deny it on the management page")
          + ` (or through the API: POST /api/stations/${facts.stationId}/accessrequests/${facts.requestId}/approve/ or deny/).\n`
          + "You receive this because you maintain the station, or created it and it has no maintainers.\n",
      };
    case "approved":
      return {
        subject: `Your access to station ${station} was approved`,
        text: `Your request on ${name} to read the protected data of station ${station} was approved, ${until(facts.validUntil)}.`
          + (facts.validUntil ? " You will be reminded a week before it ends." : "") + stationLink,
      };
    case "denied":
      return {
        subject: `Your access request for station ${station} was denied`,
        text: `Your request on ${name} to read the protected data of station ${station} was denied.\n\nThe reason given:\n\n${facts.reason}\n`,
      };
    case "reminder":
      return {
        subject: `Your access to station ${station} ends on ${facts.validUntil}`,
        text: `Your access on ${name} to the protected data of station ${station} ends on ${facts.validUntil} (when that day begins, UTC). `
          + "To keep it, ask the station's maintainers for a new request to be approved." + stationLink,
      };
    case "expired":
      return {
        subject: `Your access to station ${station} has ended`,
        text: `Your access on ${name} to the protected data of station ${station} ended on ${facts.validUntil}. `
          + "You may request access again from the station's page." + stationLink,
      };
  }
}

/** Queues one e-mail per recipient, in the caller's transaction. */
export async function queueAccessMails(tx: Tx, event: MailEvent, facts: MailFacts, recipients: readonly string[], site: string): Promise<void> {
  const { subject, text } = accessMailText(event, facts, site);
  const addresses = [...new Set(recipients.filter((r) => r !== ""))];
  // One key per request, event and recipient (and the instant: a request can be approved twice, after an expiry).
  const stamp = Date.now();
  for (const [i, to] of addresses.entries()) {
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
