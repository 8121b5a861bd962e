import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reloadSettings } from "@/lib/config";
import { sendMail } from "@/lib/mail";

describe("sendMail to the development outbox", () => {
  let outbox: string;
  const saved = { host: process.env.ENHYDRIS_EMAIL_HOST, dir: process.env.ENHYDRIS_OUTBOX_DIR };
  beforeAll(() => {
    outbox = mkdtempSync(join(tmpdir(), "outbox-"));
    delete process.env.ENHYDRIS_EMAIL_HOST;
    process.env.ENHYDRIS_OUTBOX_DIR = outbox;
    reloadSettings();
  });
  afterAll(() => {
    if (saved.host === undefined) delete process.env.ENHYDRIS_EMAIL_HOST;
    else process.env.ENHYDRIS_EMAIL_HOST = saved.host;
    if (saved.dir === undefined) delete process.env.ENHYDRIS_OUTBOX_DIR;
    else process.env.ENHYDRIS_OUTBOX_DIR = saved.dir;
    reloadSettings();
    rmSync(outbox, { recursive: true, force: true });
  });

  it("keeps every header on one line: a line break in a name starts no header of its own", async () => {
    await sendMail({
      from: "noreply@example.com",
      to: "a@example.com,\r\nBcc: b@example.com",
      subject: "Enhydris early warning (River\r\nBcc: spy@example.com\nX-Evil: 1)",
      text: "line one\nline two\n",
    });
    const [file] = readdirSync(outbox);
    const message = readFileSync(join(outbox, file), "utf8");
    const blank = message.indexOf("\n\n");
    const headers = message.slice(0, blank);
    const body = message.slice(blank + 2);
    expect(headers.split("\n")).toEqual([
      "From: noreply@example.com",
      "To: a@example.com, Bcc: b@example.com",
      "Subject: Enhydris early warning (River Bcc: spy@example.com X-Evil: 1)",
    ]);
    expect(body).toBe("line one\nline two\n\n");
  });
});
