import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "@/lib/auth/passwords";
import { db } from "@/lib/db";
import { deleteExpiredRegistrations } from "@/lib/accounts/registration";
import { startServer, type TestServer } from "@/tests/support/server";
import { fieldMessages, formMessages, formsOf, type SiteForm } from "@/tests/support/site-forms";
import { siteLogin } from "@/tests/support/site-session";
import { startSmtp, type Received } from "@/tests/support/smtp";

/** Self-registration (public.md §1), end to end through the pages and the real SMTP test server. */
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    env: {
      ENHYDRIS_REGISTRATION_OPEN: "true", ENHYDRIS_REGISTRATION_RATE: "3", ENHYDRIS_TRUST_PROXY_HEADERS: "true",
      ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: String(smtp.port), ENHYDRIS_EMAIL_FROM: "noreply@example.org",
      ENHYDRIS_SITE_URL: "https://enhydris.example.org", ENHYDRIS_SITE_NAME: "Enhydris test", ENHYDRIS_LOGIN_MAX_FAILURES: "1000",
    },
  });
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&amp;/g, "&");
let addresses = 0;
/** Each test registers from its own client address (the rate counts per address). */
const freshAddress = () => `198.51.100.${++addresses}`;

interface Page { form: SiteForm; challenge: { algorithm: string; challenge: string; salt: string; signature: string; maxnumber: number } }

async function registerPage(address: string): Promise<Page> {
  const r = await fetch(`${server.url}/accounts/register/`, { headers: { "X-Forwarded-For": address } });
  expect(r.status).toBe(200);
  const html = await r.text();
  const form = formsOf(html, "/accounts/register/").get("Register")!;
  const challenge = JSON.parse(decode(/data-challenge="([^"]*)"/.exec(html)![1]));
  return { form, challenge };
}

/**
 * Solves the proof of work as ALTCHA's widget does (the number whose SHA-256 with the salt is the
 * challenge), with node:crypto's synchronous hash: altcha-lib's solver hashes through WebCrypto's
 * promises, some 50 times slower (this file's captchas took half a minute of CPU).
 */
async function solve(c: Page["challenge"]): Promise<string> {
  expect(c.algorithm).toBe("SHA-256");
  let number = 0;
  while (createHash("sha256").update(c.salt + number).digest("hex") !== c.challenge) {
    if (++number > (c.maxnumber ?? 1_000_000)) throw new Error("no solution to the captcha");
  }
  return Buffer.from(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number, salt: c.salt, signature: c.signature })).toString("base64");
}

async function post(page: Page, fields: Record<string, string>, address: string): Promise<{ status: number; html: string }> {
  const body = new FormData();
  for (const [k, v] of page.form.hidden) if (!(k in fields)) body.append(k, v);
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  const r = await fetch(server.url + page.form.url, { method: "POST", body, redirect: "manual", headers: { Origin: server.url, "X-Forwarded-For": address } });
  return { status: r.status, html: await r.text() };
}

const good = (name: string) => ({ username: name, email: `${name}@example.org`, password1: "a-good-password", password2: "a-good-password", accept_terms: "true" });

async function registerAs(name: string, address = freshAddress(), email?: string): Promise<{ html: string }> {
  const page = await registerPage(address);
  const r = await post(page, { ...good(name), ...(email ? { email } : {}), altcha: await solve(page.challenge) }, address);
  expect(r.status).toBe(200);
  return r;
}

/** The first e-mail to `address` after the first `after` (waiting for it: another test's may come first). */
async function mailTo(address: string, after: number): Promise<Received> {
  const deadline = Date.now() + 30_000;
  for (let n = after + 1; ; n++) {
    const messages = await smtp.waitFor(n, Math.max(0, deadline - Date.now()));
    const found = messages.slice(after).find((m) => m.to.some((to) => to.toLowerCase() === address.toLowerCase()));
    if (found) return found;
    if (messages.length < n) throw new Error(`no e-mail to ${address}`);
  }
}

const linkPattern = /https:\/\/enhydris\.example\.org(\/accounts\/activate\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/)/;
const SENT = "Check your e-mail.";

describe("registration (public.md §1)", () => {
  it("registers, mails the link, refuses the login until activated, activates once", async () => {
    const before = smtp.messages.length;
    const r = await registerAs("newcomer");
    expect(r.html).toContain(SENT);
    const mail = await mailTo("newcomer@example.org", before);
    expect(mail.subject).toBe("Activate your account on Enhydris test");
    expect(mail.text).toContain('registered the account "newcomer" on Enhydris test');
    expect(mail.text).toContain("within 7 days");
    const user = await db().prisma.user.findUniqueOrThrow({ where: { username: "newcomer" } });
    expect(user.isActive).toBe(false);
    expect(user.password).not.toContain("a-good-password");

    expect((await siteLogin(server.url, "newcomer", "a-good-password")).error).toBe("NotActivated");
    expect((await siteLogin(server.url, "newcomer", "a-wrong-password")).error).toBe("CredentialsSignin");
    const login = await (await fetch(`${server.url}/accounts/login/?error=NotActivated`)).text();
    expect(login).toContain("Your account is not activated yet.");
    expect(login).toContain('href="/accounts/register/resend/"');

    const path = linkPattern.exec(mail.text)![1];
    const first = await (await fetch(server.url + path)).text();
    expect(first).toContain("Your account is active");
    expect((await db().prisma.user.findUniqueOrThrow({ where: { id: user.id } })).isActive).toBe(true);
    const second = await (await fetch(server.url + path)).text();
    expect(second).toContain("This activation link is invalid");
    expect((await siteLogin(server.url, "newcomer", "a-good-password")).error).toBeNull();
  });

  it("refuses a forged link and an expired one; the upkeep removes the expired account; a resent link works", async () => {
    let before = smtp.messages.length;
    await registerAs("late");
    const path = linkPattern.exec((await mailTo("late@example.org", before)).text)![1];
    const forged = path.replace(/\/([A-Za-z0-9_-]+)\/$/, (_, t: string) => `/${t.slice(0, -2)}${t.endsWith("AA") ? "BB" : "AA"}/`);
    expect(await (await fetch(server.url + forged)).text()).toContain("This activation link is invalid");
    expect(await (await fetch(`${server.url}/accounts/activate/not-a-uid/x/`)).text()).toContain("This activation link is invalid");

    const user = await db().prisma.user.findUniqueOrThrow({ where: { username: "late" } });
    await db().write((tx) => tx.pendingActivation.update({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } }));
    expect(await (await fetch(server.url + path)).text()).toContain("This activation link has expired");
    expect((await db().prisma.user.findUniqueOrThrow({ where: { id: user.id } })).isActive).toBe(false);

    // A new link (valid the full period again) from the resend page.
    before = smtp.messages.length;
    const resend = await fetch(`${server.url}/accounts/register/resend/`);
    const resendForm = formsOf(await resend.text(), "/accounts/register/resend/").get("Send the activation link again")!;
    const body = new FormData();
    for (const [k, v] of resendForm.hidden) body.append(k, v);
    body.append("email", "LATE@example.org");
    const answer = await fetch(server.url + resendForm.url, { method: "POST", body, headers: { Origin: server.url } });
    expect(await answer.text()).toContain("a new activation link is on its way");
    const fresh = linkPattern.exec((await mailTo("late@example.org", before)).text)![1];
    expect(fresh).not.toBe(path);
    expect(await (await fetch(server.url + path)).text()).toContain("This activation link is invalid");

    // Expired again and never used: the upkeep removes the account.
    await db().write((tx) => tx.pendingActivation.update({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } }));
    expect(await deleteExpiredRegistrations()).toBeGreaterThanOrEqual(1);
    expect(await db().prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
    expect(await (await fetch(server.url + fresh)).text()).toContain("This activation link is invalid");
  });

  it("says the same for an address already registered, and mails its owner instead", async () => {
    await db().write((tx) => tx.user.create({ data: { username: "owner", email: "taken@example.org", password: "x" } }));
    const before = smtp.messages.length;
    const r = await registerAs("someone-else", freshAddress(), "Taken@Example.org");
    expect(r.html).toContain(SENT);
    const mail = await mailTo("Taken@Example.org", before);
    // To the address as stored, not as typed.
    expect(mail.to).toEqual(["taken@example.org"]);
    expect(mail.subject).toBe("Registration on Enhydris test");
    expect(mail.text).toContain('already belongs to the account "owner"');
    expect(mail.text).not.toContain("/accounts/activate/");
    expect(await db().prisma.user.findUnique({ where: { username: "someone-else" } })).toBeNull();
  });

  it("answers a second registration of a username awaiting activation as a registration (no enumeration)", async () => {
    // A username registered with a new address (an account awaiting activation is made), and one
    // registered with an address that has an account (nothing is made): a second registration of
    // each must not tell them apart.
    await db().write((tx) => tx.user.create({ data: { username: "known-owner", email: "known@example.org", password: "x" } }));
    let before = smtp.messages.length;
    expect((await registerAs("probe-new", freshAddress(), "fresh@example.org")).html).toContain(SENT);
    await mailTo("fresh@example.org", before);
    before = smtp.messages.length;
    expect((await registerAs("probe-known", freshAddress(), "known@example.org")).html).toContain(SENT);
    await mailTo("known@example.org", before);
    expect(await db().prisma.user.findUnique({ where: { username: "probe-known" } })).toBeNull();

    const second = async (name: string) => {
      const address = freshAddress();
      const page = await registerPage(address);
      const started = Date.now();
      const r = await post(page, { ...good(name), email: "prober@example.org", altcha: await solve(page.challenge) }, address);
      return { ...r, ms: Date.now() - started };
    };
    before = smtp.messages.length;
    const pending = await second("probe-new");
    const mail = await mailTo("prober@example.org", before);
    const absent = await second("probe-known");
    for (const r of [pending, absent]) {
      expect(r.status).toBe(200);
      expect(r.html).toContain(SENT);
      expect(fieldMessages(r.html)).toEqual([]);
      expect(formMessages(r.html)).toEqual([]);
    }
    // The same page but for the username typed.
    const strip = (html: string, name: string) => html.replaceAll(name, "NAME").replace(/<script[\s\S]*?<\/script>/g, "").replace(/ nonce="[^"]*"/g, "");
    expect(strip(pending.html, "probe-new")).toBe(strip(absent.html, "probe-known"));
    // The pending account is untouched; the address typed learns why nothing was made.
    const kept = await db().prisma.user.findUniqueOrThrow({ where: { username: "probe-new" } });
    expect(kept.email).toBe("fresh@example.org");
    expect(kept.isActive).toBe(false);
    expect(mail.subject).toBe("Registration on Enhydris test");
    expect(mail.text).toContain('tried to register the account "probe-new" on Enhydris test');
    expect(mail.text).toContain("belongs to another registration that awaits activation");
    expect(mail.text).not.toContain("/accounts/activate/");
    // The second registration of the username that was free made its account (in the background).
    for (let i = 0; i < 100 && !(await db().prisma.user.findUnique({ where: { username: "probe-known" } })); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await db().prisma.user.findUniqueOrThrow({ where: { username: "probe-known" } })).email).toBe("prober@example.org");

    // With the pending account's own address (in other capitals): its link again, to the stored
    // address, once the cooldown since the last link has passed.
    await db().write((tx) => tx.pendingActivation.update({ where: { userId: kept.id }, data: { expiresAt: new Date(Date.now() + 7 * 86_400_000 - 6 * 60_000) } }));
    before = smtp.messages.length;
    expect((await registerAs("probe-new", freshAddress(), "FRESH@example.org")).html).toContain(SENT);
    const again = await mailTo("fresh@example.org", before);
    expect(again.to).toEqual(["fresh@example.org"]);
    expect(again.subject).toBe("Activate your account on Enhydris test");
    const path = linkPattern.exec(again.text)![1];
    expect(await (await fetch(server.url + path)).text()).toContain("Your account is active");
    // Active now: its username is refused, whatever the address.
    const address = freshAddress();
    const page = await registerPage(address);
    const taken = await post(page, { ...good("probe-new"), email: "prober@example.org", altcha: await solve(page.challenge) }, address);
    expect(fieldMessages(taken.html)).toEqual(["A user with that username already exists."]);
  });

  it("applies the rules of auth/user/ and the password change", async () => {
    const address = freshAddress();
    const page = await registerPage(address);
    const r = await post(page, { username: "bad name!", email: "nope", password1: "12345678", password2: "12345678", altcha: await solve(page.challenge) }, address);
    expect(fieldMessages(r.html)).toEqual([
      "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.",
      "Enter a valid email address.",
      "This password is entirely numeric.",
      "You must accept the terms of use to register.",
    ]);
    const differ = await post(page, { ...good("differ"), password2: "another-password" }, address);
    expect(fieldMessages(differ.html)).toEqual(["The two password fields didn’t match."]);
    await db().write((tx) => tx.user.create({ data: { username: "existing", password: "x" } }));
    const taken = await post(page, { ...good("existing") }, address);
    expect(fieldMessages(taken.html)).toEqual(["A user with that username already exists."]);
  });

  it("shows the rules' messages in the page's language; the API's stay English (public.md §3)", async () => {
    const address = freshAddress();
    const greek = { "X-Forwarded-For": address, "Accept-Language": "el" };
    const html = await (await fetch(`${server.url}/accounts/register/`, { headers: greek })).text();
    const form = formsOf(html, "/accounts/register/").get("Εγγραφή")!;
    const body = new FormData();
    for (const [k, v] of form.hidden) body.append(k, v);
    for (const [k, v] of Object.entries({ username: "bad name!", email: "nope", password1: "12345678", password2: "12345678", altcha: "" })) body.append(k, v);
    const r = await fetch(server.url + form.url, { method: "POST", body, redirect: "manual", headers: { ...greek, Origin: server.url } });
    expect(fieldMessages(await r.text())).toEqual([
      "Εισαγάγετε ένα έγκυρο όνομα χρήστη. Μπορεί να περιέχει μόνο γράμματα, αριθμούς και τους χαρακτήρες @/./+/-/_.",
      "Εισαγάγετε μια έγκυρη διεύθυνση e-mail.",
      "Αυτός ο κωδικός αποτελείται μόνο από ψηφία.",
      "Για να εγγραφείτε πρέπει να αποδεχτείτε τους όρους χρήσης.",
    ]);
  });

  it("refuses a missing, a wrong and a replayed captcha", async () => {
    const address = freshAddress();
    const page = await registerPage(address);
    const missing = await post(page, good("nocaptcha"), address);
    expect(formMessages(missing.html)).toEqual(["Please wait until the check that you are human is done, then send the form again."]);
    const solution = JSON.parse(Buffer.from(await solve(page.challenge), "base64").toString());
    const wrong = Buffer.from(JSON.stringify({ ...solution, number: solution.number + 1 })).toString("base64");
    const bad = await post(page, { ...good("wrongcaptcha"), altcha: wrong }, address);
    expect(formMessages(bad.html)).toEqual(["The check that you are human failed or has expired. Please send the form again."]);
    expect(formMessages((await post(page, { ...good("garbage"), altcha: "%%%" }, address)).html)).toEqual(["The check that you are human failed or has expired. Please send the form again."]);

    const right = Buffer.from(JSON.stringify(solution)).toString("base64");
    expect((await post(page, { ...good("firstuse"), altcha: right }, address)).html).toContain(SENT);
    const replay = await post(page, { ...good("replayed"), altcha: right }, address);
    expect(formMessages(replay.html)).toEqual(["The check that you are human failed or has expired. Please send the form again."]);
    expect(await db().prisma.user.findUnique({ where: { username: "replayed" } })).toBeNull();
    expect(await db().prisma.user.findUnique({ where: { username: "nocaptcha" } })).toBeNull();
  });

  it("limits the requests for a new activation link per client address, and the links per account", async () => {
    let before = smtp.messages.length;
    await registerAs("resender");
    await mailTo("resender@example.org", before);
    const user = await db().prisma.user.findUniqueOrThrow({ where: { username: "resender" } });
    const ask = async (email: string, address: string) => {
      const page = await fetch(`${server.url}/accounts/register/resend/`, { headers: { "X-Forwarded-For": address } });
      const form = formsOf(await page.text(), "/accounts/register/resend/").get("Send the activation link again")!;
      const body = new FormData();
      for (const [k, v] of form.hidden) body.append(k, v);
      body.append("email", email);
      const r = await fetch(server.url + form.url, { method: "POST", body, headers: { Origin: server.url, "X-Forwarded-For": address } });
      return { status: r.status, html: await r.text() };
    };
    // As rendered (the page's message catalogue holds the words too).
    const ON_ITS_WAY = "a new activation link is on its way.</p>";
    // The link was just sent: a request within the cooldown says the same and sends nothing.
    before = smtp.messages.length;
    const address = freshAddress();
    expect((await ask("resender@example.org", address)).html).toContain(ON_ITS_WAY);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.messages.slice(before).filter((m) => m.to.includes("resender@example.org"))).toEqual([]);
    // After it, a new link.
    await db().write((tx) => tx.pendingActivation.update({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() + 7 * 86_400_000 - 6 * 60_000) } }));
    before = smtp.messages.length;
    expect((await ask("resender@example.org", address)).html).toContain(ON_ITS_WAY);
    expect((await mailTo("resender@example.org", before)).subject).toBe("Activate your account on Enhydris test");
    // ENHYDRIS_REGISTRATION_RATE (3) requests an hour per client address, whatever the address
    // typed (an account's or not): the refusal tells nothing of it.
    expect((await ask("nobody@example.org", address)).html).toContain(ON_ITS_WAY);
    for (const email of ["resender@example.org", "nobody@example.org"]) {
      const refused = await ask(email, address);
      expect(refused.status).toBe(200);
      expect(refused.html).not.toContain(ON_ITS_WAY);
      expect(fieldMessages(refused.html)).toEqual(["Too many requests for activation links from your address. Please try again in an hour."]);
    }
    // Counted apart from the registrations, and per address.
    expect((await registerAs("resender2", address)).html).toContain(SENT);
    expect((await ask("nobody@example.org", freshAddress())).html).toContain(ON_ITS_WAY);
  });

  it("limits registrations per client address per hour", async () => {
    const address = freshAddress();
    for (const name of ["rate1", "rate2", "rate3"]) expect((await registerAs(name, address)).html).toContain(SENT);
    const page = await registerPage(address);
    const r = await post(page, { ...good("rate4"), altcha: await solve(page.challenge) }, address);
    expect(formMessages(r.html)).toEqual(["Too many registrations from your address. Please try again in an hour."]);
    expect(await db().prisma.user.findUnique({ where: { username: "rate4" } })).toBeNull();
    // Another address is not affected.
    expect((await registerAs("rate5")).html).toContain(SENT);
  });

  it("shows the terms and links the registration from the login page", async () => {
    const terms = await fetch(`${server.url}/accounts/terms/`);
    expect(terms.status).toBe(200);
    expect(await terms.text()).toContain("<h1>Terms of use</h1>");
    expect(await (await fetch(`${server.url}/accounts/login/`)).text()).toContain('href="/accounts/register/"');
  });
});

describe("registration closed (the default)", () => {
  let closed: TestServer;
  beforeAll(async () => {
    closed = await startServer();
  });
  afterAll(() => closed?.stop());

  it("answers 404 on every page and the login page has no link", async () => {
    for (const path of ["/accounts/register/", "/accounts/register/resend/", "/accounts/terms/", "/accounts/activate/MQ/abc/"]) {
      expect((await fetch(closed.url + path)).status, path).toBe(404);
    }
    expect(await (await fetch(`${closed.url}/accounts/login/`)).text()).not.toContain("/accounts/register/");
  });

  it("tells an unactivated account to ask the administrator, without the link to the closed resend page", async () => {
    const hashed = await hashPassword("a-good-password");
    await db().write(async (tx) => {
      const user = await tx.user.create({ data: { username: "waiting", email: "waiting@example.org", password: hashed, isActive: false } });
      await tx.pendingActivation.create({ data: { userId: user.id, tokenHash: "0".repeat(64), expiresAt: new Date(Date.now() + 86_400_000) } });
    });
    expect((await siteLogin(closed.url, "waiting", "a-good-password")).error).toBe("NotActivated");
    const page = await (await fetch(`${closed.url}/accounts/login/?error=NotActivated`)).text();
    expect(page).toContain("Your account is not activated yet. Ask the administrator of the site to activate it.");
    expect(page).not.toContain("/accounts/register/");
    const greek = await (await fetch(`${closed.url}/accounts/login/?error=NotActivated`, { headers: { "Accept-Language": "el" } })).text();
    expect(greek).toContain("Ζητήστε από τον διαχειριστή του ιστότοπου να τον ενεργοποιήσει.");
    expect(greek).not.toContain("/accounts/register/");
    // The form sent without JavaScript says the same.
    // The login form (no aria-label of its own): the one with the username field.
    const html = (await (await fetch(`${closed.url}/accounts/login/`)).text())
      .replace(/<form\b(?=[^>]*>(?:(?!<\/form>)[\s\S])*name="username")/, '<form aria-label="the login"');
    const form = formsOf(html, "/accounts/login/").get("the login")!;
    const body = new FormData();
    for (const [k, v] of form.hidden) body.append(k, v);
    body.append("username", "waiting");
    body.append("password", "a-good-password");
    const posted = await (await fetch(closed.url + form.url, { method: "POST", body, redirect: "manual", headers: { Origin: closed.url } })).text();
    expect(posted).toContain("Ask the administrator of the site to activate it.");
    expect(posted).not.toContain("/accounts/register/resend/");
  });
});
