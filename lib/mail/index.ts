import { join, resolve } from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import { settings } from "@/lib/config";
import { logger } from "@/lib/observability/logger.mjs";
import { makePrivateDirectory, writeNewPrivateFileSync } from "@/lib/runtime/private-files";

/**
 * Outgoing e-mail (api.md §13, §14): SMTP when ENHYDRIS_EMAIL_HOST is set; otherwise the
 * message is written to a file under ./data/outbox/ (development). The log names the file but
 * never holds the message: a password-reset link in a log would be a credential in it.
 */
export interface Mail {
  to: string;
  from: string;
  subject: string;
  text: string;
}

let transporter: Transporter | undefined;

function smtp(): Transporter {
  const s = settings();
  return (transporter ??= nodemailer.createTransport({
    host: s.emailHost,
    port: s.emailPort,
    secure: s.emailSecure,
    auth: s.emailUser ? { user: s.emailUser, pass: s.emailPassword } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  }));
}

/**
 * The From of the mail the service sends of itself (alarms, telemetry alerts, access requests):
 * ENHYDRIS_EMAIL_FROM, or noreply at the site's host.
 */
export function serviceSender(): string {
  const { emailFrom, siteUrl } = settings();
  return emailFrom || `noreply@${siteUrl ? new URL(siteUrl).hostname : "localhost"}`;
}

/** A header's value on one line: a name with a line break (a station's, say) must not start another header. */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, " ");

export async function sendMail(given: Mail): Promise<void> {
  const mail = { ...given, from: oneLine(given.from), to: oneLine(given.to), subject: oneLine(given.subject) };
  if (settings().emailHost) {
    await smtp().sendMail({ ...mail, textEncoding: "quoted-printable" });
    return;
  }
  const message = `From: ${mail.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}`;
  const outbox = resolve(/* turbopackIgnore: true */ process.env.ENHYDRIS_OUTBOX_DIR ?? "./data/outbox");
  // Readable by the service's user only (lib/runtime/private-files.ts): a reset link is a credential.
  makePrivateDirectory(outbox);
  const file = join(/* turbopackIgnore: true */ outbox, `${new Date().toISOString().replace(/[:.]/g, "-")}-${Math.random().toString(36).slice(2, 8)}.eml`);
  writeNewPrivateFileSync(file, message + "\n");
  logger().info({ file, subject: mail.subject }, "e-mail written to the development outbox (ENHYDRIS_EMAIL_HOST is empty)");
}

export { recipientLocales, recipientsByLocale } from "@/lib/mail/locales";
