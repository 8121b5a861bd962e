import { SMTPServer } from "smtp-server";
import { freePort } from "@/tests/support/server";

/** A real SMTP listener on loopback that keeps what it receives. */
export interface Received {
  from: string;
  to: string[];
  raw: string;
  /** The decoded text body (quoted-printable undone). */
  text: string;
  subject: string;
}

/** A header with its RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=, as nodemailer writes them) decoded. */
export function decodeHeader(value: string): string {
  return value.replace(/\?=\s+=\?/g, "?==?").replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) => encoding.toUpperCase() === "B"
    ? Buffer.from(text, "base64").toString("utf8")
    : decodeQuotedPrintable(text.replace(/_/g, " ")));
}

export function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r?\n/g, "");
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === "=" && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i], "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

export interface SmtpListener {
  port: number;
  messages: Received[];
  /** Messages refused so far (see `refuse`). */
  refused: number;
  waitFor(n: number, ms?: number): Promise<Received[]>;
  /** Answers the next `n` messages with a temporary failure (451) instead of taking them. */
  refuse(n: number): void;
  close(): Promise<void>;
}

/** A test server's settings that send its mail to this listener, from `from`, for the site at `url` named `name`. */
export function mailSettings(smtp: SmtpListener, site: { from: string; url: string; name: string }): Record<string, string> {
  return {
    ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: String(smtp.port), ENHYDRIS_EMAIL_FROM: site.from,
    ENHYDRIS_SITE_URL: site.url, ENHYDRIS_SITE_NAME: site.name,
  };
}

export async function startSmtp(): Promise<SmtpListener> {
  const messages: Received[] = [];
  let toRefuse = 0;
  const listener = { refused: 0 } as SmtpListener;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (toRefuse > 0) {
          toRefuse--;
          listener.refused++;
          callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const [head, ...rest] = raw.split(/\r?\n\r?\n/);
        const qp = /content-transfer-encoding:\s*quoted-printable/i.test(head);
        const body = rest.join("\n\n");
        messages.push({
          raw,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          text: (qp ? decodeQuotedPrintable(body) : body).replace(/\r\n/g, "\n"),
          subject: decodeHeader((/^subject:\s*(.*(?:\r?\n[ \t].*)*)$/im.exec(head)?.[1] ?? "").replace(/\r?\n[ \t]+/g, " ").trim()),
        });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return Object.assign(listener, {
    port,
    messages,
    // Patient by default: a mail job on a machine running two suites at once waits its turn for the CPU.
    async waitFor(n: number, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (messages.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return messages;
    },
    refuse(n: number) {
      toRefuse = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
