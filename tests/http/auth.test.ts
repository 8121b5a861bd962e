import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { api, type TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { PRUNE_KEY, PRUNE_KIND } from "@/lib/jobs/maintenance";
import { enqueue, getJob } from "@/lib/jobs/queue";
import { ageSiteSessions, CookieJar, siteLogin } from "@/tests/support/site-session";
import { actionId } from "@/tests/support/site-forms";
import { mailSettings, startSmtp } from "@/tests/support/smtp";
import { until } from "@/tests/support/wait";

let server: TestServer;
let http: ReturnType<typeof api>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    env: { ...mailSettings(smtp, { from: "noreply@example.org", url: "https://enhydris.example.org", name: "Enhydris test" }), ENHYDRIS_LOGIN_MAX_FAILURES: "1000" },
  });
  http = api(server.url);
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const UNABLE = { non_field_errors: ["Unable to log in with provided credentials."] };
const expectTokenChallenge = (r: TestResponse, detail: string) => {
  expect(r.status).toBe(401);
  expect(r.json).toEqual({ detail });
  expect(r.headers.get("www-authenticate")).toBe("Token");
};

describe("POST auth/login/ (api.md §12.1)", () => {
  it("issues a new 40-hex token at every login, and sets no cookie", async () => {
    const u = await f.user({ password: "pass-word-1" });
    const a = await http.post("/api/auth/login/", { form: { username: u.username, password: "pass-word-1" } });
    const b = await http.post("/api/auth/login/", { json: { username: u.username, password: "pass-word-1" } });
    expect(a.status).toBe(200);
    expect(Object.keys(a.json)).toEqual(["key"]);
    expect(a.json.key).toMatch(/^[0-9a-f]{40}$/);
    expect(b.json.key).not.toBe(a.json.key);
    expect(a.headers.get("set-cookie")).toBeNull();
    for (const key of [a.json.key, b.json.key]) {
      expect((await http.get("/api/auth/user/", { token: key })).json.username).toBe(u.username);
    }
  });

  it("stores only a SHA-256 of the key", async () => {
    const u = await f.user({ password: "pass-word-1" });
    const { key } = (await http.post("/api/auth/login/", { form: { username: u.username, password: "pass-word-1" } })).json;
    const rows = await db().prisma.authToken.findMany({ where: { userId: u.id } });
    expect(rows.some((r) => r.keyHash === key)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.keyHash))).toBe(true);
  });

  it("accepts the e-mail address in username or email, case-insensitively", async () => {
    const u = await f.user({ password: "pass-word-1", email: "Mixed.Case@Example.org" });
    expect((await http.post("/api/auth/login/", { form: { username: "mixed.case@example.ORG", password: "pass-word-1" } })).status).toBe(200);
    expect((await http.post("/api/auth/login/", { form: { email: "MIXED.case@example.org", password: "pass-word-1" } })).status).toBe(200);
    expect((await http.post("/api/auth/login/", { form: { username: "", email: u.username, password: "pass-word-1" } })).json).toEqual(UNABLE);
  });

  it("refuses an e-mail address that two active users share", async () => {
    await f.user({ password: "pass-word-1", email: "shared@example.org" });
    await f.user({ password: "pass-word-1", email: "SHARED@example.org" });
    const r = await http.post("/api/auth/login/", { form: { email: "shared@example.org", password: "pass-word-1" } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual(UNABLE);
  });

  it.each([
    ["wrong password", (u: f.TestUser) => ({ username: u.username, password: "nope-nope" })],
    ["unknown user", () => ({ username: "nobody-here", password: "whatever1" })],
    ["neither name", () => ({ password: "whatever1" })],
  ])("answers Unable to log in for a %s", async (_case, body) => {
    const u = await f.user();
    const r = await http.post("/api/auth/login/", { form: body(u) as Record<string, string> });
    expect(r.status).toBe(400);
    expect(r.json).toEqual(UNABLE);
  });

  it("refuses inactive users like unknown ones", async () => {
    const u = await f.user({ active: false });
    const r = await http.post("/api/auth/login/", { form: { username: u.username, password: u.password } });
    expect(r.json).toEqual(UNABLE);
  });

  it("requires the password and never trims it", async () => {
    const u = await f.user({ password: " spaced pass " });
    expect((await http.post("/api/auth/login/", { form: { username: u.username } })).json).toEqual({ password: ["This field is required."] });
    expect((await http.post("/api/auth/login/", { form: { username: u.username, password: "spaced pass" } })).status).toBe(400);
    expect((await http.post("/api/auth/login/", { form: { username: u.username, password: " spaced pass " } })).status).toBe(200);
  });

  it("parses a body that is not URL-encoded as real clients send it", async () => {
    const u = await f.user({ password: "a&b@c+d" });
    const r = await http.post("/api/auth/login/", { body: `username=${u.username}&password=a%26b@c%2Bd`, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(r.status).toBe(200);
  });

  it("answers 405 to GET", async () => {
    const r = await http.get("/api/auth/login/");
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST, OPTIONS");
  });
});

describe("token authentication (api.md §2)", () => {
  it.each(["token", "TOKEN", "Token", "Bearer", "bearer"])("accepts the keyword %s", async (keyword) => {
    const u = await f.user();
    const r = await http.get("/api/auth/user/", { headers: { Authorization: `${keyword} ${u.token}` } });
    expect(r.status).toBe(200);
  });

  it("checks credentials on public reads too", async () => {
    expectTokenChallenge(await http.get("/api/stations/", { headers: { Authorization: "Token" } }), "Invalid token header. No credentials provided.");
    expectTokenChallenge(await http.get("/api/stations/", { headers: { Authorization: "Token a b" } }), "Invalid token header. Token string should not contain spaces.");
    expectTokenChallenge(await http.get("/api/stations/", { headers: { Authorization: "Token 0123456789abcdef0123456789abcdef01234567" } }), "Invalid token.");
  });

  it("rejects the token of an inactive user", async () => {
    const u = await f.user();
    await db().write((tx) => tx.user.update({ where: { id: u.id }, data: { isActive: false } }));
    expectTokenChallenge(await http.get("/api/stations/", { token: u.token }), "User inactive or deleted.");
  });

  it("ignores Basic on the current interface", async () => {
    const u = await f.user();
    const basic = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;
    expect((await http.get("/api/stations/", { headers: { Authorization: basic } })).status).toBe(200);
    expectTokenChallenge(await http.get("/api/auth/user/", { headers: { Authorization: basic } }), "Authentication credentials were not provided.");
  });
});

describe("POST auth/logout/ (api.md §12.2)", () => {
  it("revokes the token used, and only that one", async () => {
    const u = await f.user({ password: "pass-word-1" });
    const other = (await http.post("/api/auth/login/", { form: { username: u.username, password: "pass-word-1" } })).json.key;
    const r = await http.post("/api/auth/logout/", { token: u.token });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ detail: "Successfully logged out." });
    expectTokenChallenge(await http.get("/api/auth/user/", { token: u.token }), "Invalid token.");
    expect((await http.get("/api/auth/user/", { token: other })).status).toBe(200);
  });

  it("needs credentials", async () => {
    expectTokenChallenge(await http.post("/api/auth/logout/"), "Authentication credentials were not provided.");
    expect((await http.get("/api/auth/logout/")).status).toBe(405);
  });
});

describe("auth/user/ (api.md §12.3)", () => {
  it("shows the caller's record", async () => {
    const u = await f.user({ email: "alice@example.com" });
    const r = await http.get("/api/auth/user/", { token: u.token });
    expect(r.text).toBe(JSON.stringify({ pk: u.id, username: u.username, email: "alice@example.com", first_name: "", last_name: "" }));
    expectTokenChallenge(await http.get("/api/auth/user/"), "Authentication credentials were not provided.");
  });

  it("changes names with PATCH and ignores pk and email", async () => {
    const u = await f.user({ email: "keep@example.com" });
    const r = await http.patch("/api/auth/user/", { token: u.token, json: { first_name: " Alice ", pk: 999, email: "x@y.z" } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ pk: u.id, username: u.username, email: "keep@example.com", first_name: "Alice", last_name: "" });
  });

  it("requires the username on PUT and validates it", async () => {
    const u = await f.user();
    const taken = await f.user();
    expect((await http.put("/api/auth/user/", { token: u.token, form: { first_name: "A" } })).json).toEqual({ username: ["This field is required."] });
    expect((await http.put("/api/auth/user/", { token: u.token, form: { username: "bad name!" } })).json).toEqual({
      username: ["Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."] });
    expect((await http.put("/api/auth/user/", { token: u.token, form: { username: taken.username } })).json).toEqual({
      username: ["A user with that username already exists."] });
    expect((await http.put("/api/auth/user/", { token: u.token, form: { username: "x".repeat(151) } })).json).toEqual({
      username: ["Ensure this field has no more than 150 characters."] });
    const ok = await http.put("/api/auth/user/", { token: u.token, form: { username: `renamed.${u.id}+ok`, last_name: "Burton" } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ username: `renamed.${u.id}+ok`, last_name: "Burton" });
  });
});

describe("POST auth/password/change/ (api.md §12.4)", () => {
  it("reports missing fields, a wrong old password, a mismatch and weak passwords", async () => {
    const u = await f.user({ username: `robert${Date.now()}`, password: "old-password-1" });
    const post = (form: Record<string, string>) => http.post("/api/auth/password/change/", { token: u.token, form });
    expect((await post({})).json).toEqual({
      old_password: ["This field is required."], new_password1: ["This field is required."], new_password2: ["This field is required."] });
    expect((await post({ old_password: "wrong", new_password1: "new-password-1", new_password2: "new-password-1" })).json).toEqual({
      old_password: ["Your old password was entered incorrectly. Please enter it again."] });
    expect((await post({ old_password: "old-password-1", new_password1: "new-password-1", new_password2: "new-password-2" })).json).toEqual({
      new_password2: ["The two password fields didn’t match."] });
    expect((await post({ old_password: "old-password-1", new_password1: "1234567", new_password2: "1234567" })).json).toEqual({
      new_password2: ["This password is too short. It must contain at least 8 characters.", "This password is entirely numeric."] });
    expect((await post({ old_password: "old-password-1", new_password1: u.username.toUpperCase(), new_password2: u.username.toUpperCase() })).json).toEqual({
      new_password2: ["The password is too similar to the username."] });
  });

  it("saves the password, keeps the token that made the change and ends the others", async () => {
    const u = await f.user({ password: "old-password-1" });
    const other = (await http.post("/api/auth/login/", { form: { username: u.username, password: "old-password-1" } })).json.key;
    const { jar } = await siteLogin(server.url, u.username, "old-password-1");
    expect((await http.get("/api/auth/user/", { headers: { Cookie: jar.header() } })).status).toBe(200);
    const r = await http.post("/api/auth/password/change/", { token: u.token, form: { old_password: "old-password-1", new_password1: "new-password-1", new_password2: "new-password-1" } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ detail: "New password has been saved." });
    expect((await http.get("/api/auth/user/", { token: u.token })).status).toBe(200);
    expectTokenChallenge(await http.get("/api/auth/user/", { token: other }), "Invalid token.");
    expect((await http.get("/api/auth/user/", { headers: { Cookie: jar.header() } })).status).toBe(401);
    expect((await http.post("/api/auth/login/", { form: { username: u.username, password: "old-password-1" } })).status).toBe(400);
    expect((await http.post("/api/auth/login/", { form: { username: u.username, password: "new-password-1" } })).status).toBe(200);
  });
});

describe("site sessions on the API (api.md §2, §2.1) and CSRF (legacy.md §1.2)", () => {
  it("authenticates API requests with the site session", async () => {
    const u = await f.user();
    const { jar, error } = await siteLogin(server.url, u.username, u.password);
    expect(error).toBeNull();
    const r = await http.get("/api/auth/user/", { headers: { Cookie: jar.header() } });
    expect(r.json.pk).toBe(u.id);
  });

  it("tells a failed site login apart", async () => {
    const u = await f.user();
    expect((await siteLogin(server.url, u.username, "wrong")).error).toBe("CredentialsSignin");
  });

  it("requires the CSRF token for unsafe methods through a session", async () => {
    const u = await f.user();
    const { jar } = await siteLogin(server.url, u.username, u.password);
    const noCookie = await http.patch("/api/auth/user/", { headers: { Cookie: jar.header() }, form: { first_name: "X" } });
    expect(noCookie.status).toBe(403);
    expect(noCookie.json).toEqual({ detail: "CSRF Failed: CSRF cookie not set." });
    jar.set("csrftoken", "A".repeat(32));
    expect((await http.patch("/api/auth/user/", { headers: { Cookie: jar.header() }, form: { first_name: "X" } })).json).toEqual({
      detail: "CSRF Failed: CSRF token missing." });
    expect((await http.patch("/api/auth/user/", { headers: { Cookie: jar.header(), "X-CSRFToken": "B".repeat(32) }, form: { first_name: "X" } })).json).toEqual({
      detail: "CSRF Failed: CSRF token incorrect." });
    const header = await http.patch("/api/auth/user/", { headers: { Cookie: jar.header(), "x-csrftoken": "A".repeat(32) }, form: { first_name: "X" } });
    expect(header.status).toBe(200);
    const field = await http.patch("/api/auth/user/", { headers: { Cookie: jar.header() }, form: { first_name: "Y", csrfmiddlewaretoken: "A".repeat(32) } });
    expect(field.json.first_name).toBe("Y");
  });

  it("does not consult the session when a token is sent", async () => {
    const u = await f.user();
    const other = await f.user();
    const { jar } = await siteLogin(server.url, u.username, u.password);
    const r = await http.get("/api/auth/user/", { headers: { Cookie: jar.header() }, token: other.token });
    expect(r.json.pk).toBe(other.id);
  });

  it("ends every site session of the user at a logout through a session", async () => {
    const u = await f.user();
    const one = (await siteLogin(server.url, u.username, u.password)).jar;
    const two = (await siteLogin(server.url, u.username, u.password)).jar;
    one.set("csrftoken", "C".repeat(32));
    const r = await http.post("/api/auth/logout/", { headers: { Cookie: one.header(), "X-CSRFToken": "C".repeat(32) } });
    expect(r.status).toBe(200);
    expect((await http.get("/api/auth/user/", { headers: { Cookie: two.header() } })).status).toBe(401);
    expect((await http.get("/api/auth/user/", { token: u.token })).status).toBe(200);
  });

  it("ends the site session at a site logout", async () => {
    const u = await f.user();
    const { jar } = await siteLogin(server.url, u.username, u.password);
    const csrf = await fetch(`${server.url}/accounts/auth/csrf`, { headers: { Cookie: jar.header() } });
    jar.take(csrf);
    const { csrfToken } = await csrf.json();
    const out = await fetch(`${server.url}/accounts/auth/signout`, {
      method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.header() },
      body: new URLSearchParams({ csrfToken, callbackUrl: `${server.url}/`, json: "true" }),
    });
    expect(out.status).toBe(200);
    const stale = new CookieJar();
    stale.set("next-auth.session-token", jar.get("next-auth.session-token") ?? jar.get("__Secure-next-auth.session-token") ?? "");
    expect((await http.get("/api/auth/user/", { headers: { Cookie: stale.header() } })).status).toBe(401);
    // next-auth's own session route (which reads the cookie under the name it set) neither names
    // the user of the ended session nor renews its cookie.
    const name = ["__Secure-next-auth.session-token", "next-auth.session-token"].find((n) => jar.get(n))!;
    const session = await fetch(`${server.url}/accounts/auth/session`, { headers: { Cookie: `${name}=${jar.get(name)}` } });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({});
    expect(session.headers.getSetCookie()).toContain(`${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${name.startsWith("__Secure-") ? "; Secure" : ""}`);
  });
  it("ends a site session 14 days after its login, however often next-auth re-issued the cookie", async () => {
    const u = await f.user();
    const old = (await siteLogin(server.url, u.username, u.password)).jar;
    // next-auth's session route re-issues the cookie with a new expiry: no later end for the session.
    const reissued = await fetch(`${server.url}/accounts/auth/session`, { headers: { Cookie: old.header() } });
    expect(reissued.headers.getSetCookie().some((c) => /session-token=[^;]/.test(c))).toBe(true);
    old.take(reissued);
    await ageSiteSessions(u.id);
    const fresh = (await siteLogin(server.url, u.username, u.password)).jar;
    const visit = async (jar: CookieJar) => {
      const headers = { Cookie: jar.header() };
      return { page: await http.get("/accounts/profile/", { headers }), api: await http.get("/api/auth/user/", { headers }), manage: await http.get("/manage/", { headers }) };
    };

    const live = await visit(fresh);
    expect(live.page.status).toBe(200);
    expect(live.page.text).toContain(u.username);
    expect(live.api.json.pk).toBe(u.id);
    expect(live.manage.status).toBe(200);

    const ended = await visit(old);
    expect(ended.page.status).toBe(307);
    expect(ended.page.headers.get("location")).toBe("/accounts/login/?next=%2Faccounts%2Fprofile%2F");
    expectTokenChallenge(ended.api, "Authentication credentials were not provided.");
    expect(ended.manage.status).toBe(307);
    expect(ended.manage.headers.get("location")).toBe("/accounts/login/?next=%2Fmanage%2F");
    const session = await fetch(`${server.url}/accounts/auth/session`, { headers: { Cookie: old.header() } });
    expect(await session.json()).toEqual({});
    const renewed = await fetch(`${server.url}/accounts/auth/session`, { headers: { Cookie: fresh.header() } });
    expect((await renewed.json()).user.name).toBe(u.username);
  });
});

describe("password reset (api.md §12.5, §12.6, §13)", () => {
  const linkPattern = /https:\/\/enhydris\.example\.org\/api\/auth\/password\/reset\/confirm\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)\//;

  async function requestLink(email: string): Promise<{ uid: string; token: string; text: string; subject: string }> {
    const before = smtp.messages.length;
    const r = await http.post("/api/auth/password/reset/", { form: { email } });
    expect(r.status).toBe(200);
    const messages = await smtp.waitFor(before + 1);
    const message = messages[messages.length - 1];
    const [, uid, token] = linkPattern.exec(message.text)!;
    return { uid, token, text: message.text, subject: message.subject };
  }

  it("validates the address", async () => {
    expect((await http.post("/api/auth/password/reset/", { form: {} })).json).toEqual({ email: ["This field is required."] });
    expect((await http.post("/api/auth/password/reset/", { form: { email: "not-an-address" } })).json).toEqual({ email: ["Enter a valid email address."] });
  });

  it("answers the same for an unknown address and sends nothing", async () => {
    const before = smtp.messages.length;
    const r = await http.post("/api/auth/password/reset/", { form: { email: "nobody@example.org" } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ detail: "Password reset e-mail has been sent." });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages.length).toBe(before);
  });

  it("mails the link as the spec's template says", async () => {
    const u = await f.user({ email: "reset-me@example.org" });
    const mail = await requestLink("RESET-me@example.org");
    expect(mail.subject).toBe("Password reset on Enhydris test");
    expect(mail.text).toContain(`Someone asked to reset the password of the account "${u.username}" on Enhydris test.\n`);
    expect(mail.text).toContain("To choose a new password, open this link within 72 hours:\n\nhttps://enhydris.example.org/api/auth/password/reset/confirm/");
    expect(mail.text).toContain("If you did not ask for this, ignore this message: your password stays the same.");
    expect(Buffer.from(mail.uid, "base64url").toString()).toBe(String(u.id));
    const last = smtp.messages[smtp.messages.length - 1];
    expect(last.to).toEqual(["reset-me@example.org"]);
    expect(last.from).toBe("noreply@example.org");
  });

  it("mails it in the account's language, else in the request's (public.md §3)", async () => {
    const u = await f.user({ email: "reset-greek@example.org" });
    await db().write((tx) => tx.user.update({ where: { id: u.id }, data: { language: "el" } }));
    const mail = await requestLink("reset-greek@example.org");
    expect(mail.subject).toBe("Επαναφορά κωδικού πρόσβασης στο Enhydris test");
    expect(mail.text).toContain(`Κάποιος ζήτησε την επαναφορά του κωδικού πρόσβασης του λογαριασμού «${u.username}» στο Enhydris test.\n`);
    expect(mail.text).toContain("ανοίξτε αυτόν τον σύνδεσμο μέσα σε 72 ώρες:\n\nhttps://enhydris.example.org/api/auth/password/reset/confirm/");
    // No language chosen: the request's Accept-Language; an English account stays English whatever the request.
    const browser = await f.user({ email: "reset-browser@example.org" });
    const english = await f.user({ email: "reset-english@example.org" });
    await db().write((tx) => tx.user.update({ where: { id: english.id }, data: { language: "en" } }));
    for (const [email, subject] of [["reset-browser@example.org", "Επαναφορά κωδικού πρόσβασης στο Enhydris test"], ["reset-english@example.org", "Password reset on Enhydris test"]]) {
      const before = smtp.messages.length;
      expect((await http.post("/api/auth/password/reset/", { form: { email }, headers: { "Accept-Language": "el-GR,el;q=0.9" } })).status).toBe(200);
      const messages = await smtp.waitFor(before + 1);
      expect(messages[messages.length - 1].subject, email).toBe(subject);
    }
    void browser;
  });

  it("confirms through the API once, and ends every token", async () => {
    const u = await f.user({ email: "api-confirm@example.org" });
    const { uid, token } = await requestLink("api-confirm@example.org");
    const confirm = (form: Record<string, string>) => http.post("/api/auth/password/reset/confirm/", { form });
    expect((await confirm({})).json).toEqual({
      uid: ["This field is required."], token: ["This field is required."], new_password1: ["This field is required."], new_password2: ["This field is required."] });
    expect((await confirm({ uid: "zzz", token, new_password1: "brand-new-1", new_password2: "brand-new-1" })).json).toEqual({ uid: ["Invalid value"] });
    expect((await confirm({ uid, token: "abc-def", new_password1: "brand-new-1", new_password2: "brand-new-1" })).json).toEqual({ token: ["Invalid value"] });
    expect((await confirm({ uid, token, new_password1: "brand-new-1", new_password2: "brand-new-2" })).json).toEqual({ new_password2: ["The two password fields didn’t match."] });
    const ok = await confirm({ uid, token, new_password1: "brand-new-1", new_password2: "brand-new-1" });
    expect(ok.json).toEqual({ detail: "Password has been reset with the new password." });
    expect((await confirm({ uid, token, new_password1: "brand-new-2", new_password2: "brand-new-2" })).json).toEqual({ token: ["Invalid value"] });
    expectTokenChallenge(await http.get("/api/auth/user/", { token: u.token }), "Invalid token.");
    expect((await http.post("/api/auth/login/", { form: { username: u.username, password: "brand-new-1" } })).status).toBe(200);
  });

  it("goes through the HTML pages", async () => {
    const u = await f.user({ email: "pages@example.org" });
    const { uid, token } = await requestLink("pages@example.org");
    const open = await http.get(`/api/auth/password/reset/confirm/${uid}/${token}/`);
    expect(open.status).toBe(302);
    expect(open.headers.get("location")).toBe(`/api/auth/password/reset/confirm/${uid}/set-password/`);
    const cookie = open.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/api\/auth\/password\/reset\//);
    const resetCookie = cookie.split(";")[0];

    const form = await http.get(`/api/auth/password/reset/confirm/${uid}/set-password/`, { headers: { Cookie: resetCookie } });
    expect(form.status).toBe(200);
    expect(form.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(form.headers.get("referrer-policy")).toBe("no-referrer");
    expect(form.text).toContain('name="new_password1"');
    expect(form.text).toContain('name="new_password2"');
    expect(form.text).toContain(`name="token" value="${token}"`);
    expect(form.text).toContain('class="site-header"');

    const mismatch = await http.post(`/api/auth/password/reset/confirm/${uid}/set-password/`, { headers: { Cookie: resetCookie }, form: { new_password1: "page-pass-1", new_password2: "page-pass-2" } });
    expect(mismatch.status).toBe(200);
    expect(mismatch.text).toContain("The two password fields didn’t match.");

    const done = await http.post(`/api/auth/password/reset/confirm/${uid}/set-password/`, { headers: { Cookie: resetCookie }, form: { new_password1: "page-pass-1", new_password2: "page-pass-1" } });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("/api/auth/password/reset/complete/");
    const complete = await http.get("/api/auth/password/reset/complete/");
    expect(complete.status).toBe(200);
    expect(complete.text).toContain('href="/accounts/login/"');

    const used = await http.get(`/api/auth/password/reset/confirm/${uid}/${token}/`);
    expect(used.status).toBe(200);
    expect(used.text).toMatch(/invalid or has expired/);
    expect(used.text).toContain('href="/accounts/login/"');
    expect((await http.post("/api/auth/login/", { form: { username: u.username, password: "page-pass-1" } })).status).toBe(200);
  });

  it("writes the HTML pages in the request's language; the API's answers stay English (public.md §3)", async () => {
    await f.user({ email: "pages-el@example.org" });
    const { uid, token } = await requestLink("pages-el@example.org");
    const greek = { "Accept-Language": "el-GR,el;q=0.9,en;q=0.5" };
    const open = await http.get(`/api/auth/password/reset/confirm/${uid}/${token}/`, { headers: greek });
    const resetCookie = open.headers.get("set-cookie")!.split(";")[0];
    const form = await http.get(`/api/auth/password/reset/confirm/${uid}/set-password/`, { headers: { ...greek, Cookie: resetCookie } });
    expect(form.text).toContain('<html lang="el">');
    expect(form.text).toContain("<title>Επιλέξτε νέο κωδικό πρόσβασης · ");
    expect(form.text).toContain('<label for="new_password1">Νέος κωδικός πρόσβασης</label>');
    expect(form.text).toContain('<button type="submit">Ορισμός κωδικού</button>');
    expect(form.text).not.toContain("Set the password");
    const mismatch = await http.post(`/api/auth/password/reset/confirm/${uid}/set-password/`, { headers: { Cookie: `${resetCookie}; enhydris_language=el` }, form: { new_password1: "page-pass-1", new_password2: "page-pass-2" } });
    expect(mismatch.text).toContain("<li>Οι δύο κωδικοί δεν ταιριάζουν.</li>");
    const api = await http.post("/api/auth/password/reset/confirm/", { headers: greek, form: { uid, token, new_password1: "page-pass-1", new_password2: "page-pass-2" } });
    expect(api.json).toEqual({ new_password2: ["The two password fields didn’t match."] });
    const complete = await http.get("/api/auth/password/reset/complete/", { headers: greek });
    expect(complete.text).toContain("<h1>Ο κωδικός σας ορίστηκε</h1>");
    const invalid = await http.get(`/api/auth/password/reset/confirm/${uid}/set-password/`, { headers: greek });
    expect(invalid.text).toContain("<h1>Αυτός ο σύνδεσμος δεν είναι έγκυρος ή έχει λήξει</h1>");
    expect(invalid.text).toContain('<a href="/accounts/password/reset/">Ζητήστε νέο σύνδεσμο</a> ή <a href="/accounts/login/">συνδεθείτε</a>.');
  });

  it("takes the token from the path on POST (extension) and shows the invalid page without a valid one", async () => {
    await f.user({ email: "path-post@example.org" });
    const { uid, token } = await requestLink("path-post@example.org");
    const bad = await http.get(`/api/auth/password/reset/confirm/${uid}/set-password/`);
    expect(bad.status).toBe(200);
    expect(bad.text).toMatch(/invalid or has expired/);
    const r = await http.post(`/api/auth/password/reset/confirm/${uid}/${token}/`, { form: { new_password1: "path-pass-1", new_password2: "path-pass-1" } });
    expect(r.status).toBe(302);
    const garbage = await http.get("/api/auth/password/reset/confirm/%%%/x/");
    expect(garbage.status).toBe(404);
    expect(garbage.json).toEqual({ detail: "Not found." });
  });

  it("kills a pending link when the password changes", async () => {
    const u = await f.user({ email: "changed@example.org", password: "first-pass-1" });
    const { uid, token } = await requestLink("changed@example.org");
    await http.post("/api/auth/password/change/", { token: u.token, form: { old_password: "first-pass-1", new_password1: "second-pass-1", new_password2: "second-pass-1" } });
    expect((await http.get(`/api/auth/password/reset/confirm/${uid}/${token}/`)).text).toMatch(/invalid or has expired/);
  });
});

describe("login throttle (api.md §12.1)", () => {
  let throttled: TestServer;
  let t: ReturnType<typeof api>;
  let n = 0;
  /** A login from its own client address (proxy headers are trusted on this server). */
  const login = (form: Record<string, string>, address = `10.0.0.${++n}`) =>
    t.post("/api/auth/login/", { form, headers: { "X-Forwarded-For": `${address}, 192.0.2.1` } });

  beforeAll(async () => {
    throttled = await startServer({ env: { ENHYDRIS_LOGIN_MAX_FAILURES: "3", ENHYDRIS_LOGIN_FAILURE_WINDOW: "60", ENHYDRIS_TRUST_PROXY_HEADERS: "true" } });
    t = api(throttled.url);
  });
  afterAll(() => throttled?.stop());

  it("blocks a name after the limit of failures, even with the right password, and says for how long", async () => {
    const u = await f.user({ password: "right-pass-1" });
    for (let i = 0; i < 3; i++) expect((await login({ username: u.username, password: "wrong" })).status).toBe(400);
    const r = await login({ username: u.username, password: "right-pass-1" });
    expect(r.status).toBe(429);
    const seconds = Number(r.headers.get("retry-after"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(r.json).toEqual({ detail: `Request was throttled. Expected available in ${seconds} seconds.` });
    // Throttled before any field is validated: no password at all is 429 too.
    expect((await login({ username: u.username.toUpperCase() })).status).toBe(429);
  });

  it("counts the name case-insensitively and clears it on success", async () => {
    const u = await f.user({ password: "right-pass-1" });
    await login({ username: u.username, password: "wrong" });
    await login({ username: u.username.toUpperCase(), password: "wrong" });
    expect((await login({ username: u.username, password: "right-pass-1" })).status).toBe(200);
    await login({ username: u.username, password: "wrong" });
    await login({ username: u.username, password: "wrong" });
    expect((await login({ username: u.username, password: "right-pass-1" })).status).toBe(200);
  });

  it("blocks a client address that fails with many names, and only that address", async () => {
    const u = await f.user({ password: "right-pass-1" });
    for (const name of ["a1", "a2", "a3"]) await login({ username: name, password: "x" }, "10.9.9.9");
    expect((await login({ username: u.username, password: "right-pass-1" }, "10.9.9.9")).status).toBe(429);
    expect((await login({ username: u.username, password: "right-pass-1" }, "10.9.9.10")).status).toBe(200);
    // A success does not clear the address counter.
    expect((await login({ username: u.username, password: "right-pass-1" }, "10.9.9.9")).status).toBe(429);
  });

  it("counts a name longer than any account's against the address alone, and keeps no key of its size", async () => {
    const u = await f.user({ password: "right-pass-1" });
    const long = `${u.username}-${"x".repeat(1_000_000)}`;
    const failed = { non_field_errors: ["Unable to log in with provided credentials."] };
    // Three failures from one address: a form, JSON by the e-mail field, and multipart.
    expect((await login({ username: long, password: "wrong" }, "10.5.5.5")).json).toEqual(failed);
    const json = await t.post("/api/auth/login/", { json: { email: `${long}@example.com`, password: "wrong" }, headers: { "X-Forwarded-For": "10.5.5.5" } });
    expect(json.json).toEqual(failed);
    const multipart = new FormData();
    multipart.append("username", long.toUpperCase());
    multipart.append("password", "wrong");
    expect((await t.post("/api/auth/login/", { body: multipart, headers: { "X-Forwarded-For": "10.5.5.5" } })).json).toEqual(failed);
    const keys = await db().prisma.$queryRaw<{ n: bigint | number }[]>`SELECT count(*) AS n FROM login_failure WHERE length(key) > 300`;
    expect(Number(keys[0].n)).toBe(0);
    expect((await login({ username: u.username, password: "right-pass-1" }, "10.5.5.5")).status).toBe(429);
    expect((await login({ username: u.username, password: "right-pass-1" }, "10.5.5.6")).status).toBe(200);
  });

  it("throttles the site login with the same counters", async () => {
    const u = await f.user({ password: "right-pass-1" });
    for (let i = 0; i < 3; i++) await login({ username: u.username, password: "wrong" });
    expect((await siteLogin(throttled.url, u.username, "right-pass-1")).error).toMatch(/^Throttled:\d+$/);
  });

  it("counts failures per account whatever name logs in to it: a locked account logging in by e-mail stays locked", async () => {
    const u = await f.user({ password: "right-pass-1" });
    const email = `${u.username}@example.com`;
    // Three failures under three names of one account (and three addresses): no name and no address reaches 3 alone.
    expect((await login({ username: u.username, password: "wrong" })).status).toBe(400);
    expect((await login({ username: email.toUpperCase(), password: "wrong" })).status).toBe(400);
    expect((await login({ email, password: "wrong" })).status).toBe(400);
    for (const form of [{ username: u.username }, { username: email }, { email: email.toUpperCase() }] as Record<string, string>[]) {
      const r = await login({ ...form, password: "right-pass-1" });
      expect(r.status, JSON.stringify(form)).toBe(429);
      expect(r.json).toEqual({ detail: `Request was throttled. Expected available in ${r.headers.get("retry-after")} seconds.` });
    }
    // The site login by e-mail and HTTP Basic on the legacy interface are refused as well.
    expect((await siteLogin(throttled.url, email, "right-pass-1")).error).toMatch(/^Throttled:\d+$/);
    const basic = `Basic ${Buffer.from(`${u.username}:right-pass-1`).toString("base64")}`;
    expect((await t.get("/api/Variable/", { headers: { Authorization: basic, "X-Forwarded-For": "10.7.7.7" } })).status).toBe(429);
    // Another account is not affected.
    const other = await f.user({ password: "right-pass-1" });
    expect((await login({ username: other.username, password: "right-pass-1" })).status).toBe(200);
  });

  it("a locked account by its e-mail address stays locked by its username; a success clears the account's counter", async () => {
    const u = await f.user({ password: "right-pass-1" });
    const email = `${u.username}@example.com`;
    expect((await login({ username: email, password: "wrong" })).status).toBe(400);
    expect((await login({ username: email, password: "right-pass-1" })).status).toBe(200);
    // The success cleared the account: two more failures by e-mail and one by Basic make three.
    await login({ email, password: "wrong" });
    await login({ username: email, password: "wrong" });
    const basic = `Basic ${Buffer.from(`${u.username}:wrong`).toString("base64")}`;
    expect((await t.get("/api/Variable/", { headers: { Authorization: basic, "X-Forwarded-For": "10.7.7.8" } })).status).toBe(401);
    expect((await login({ username: u.username, password: "right-pass-1" })).status).toBe(429);
  });

  it("a wrong old password in a password change counts against the account and the address (API and site)", async () => {
    const u = await f.user({ password: "right-pass-1" });
    const change = (old: string, address: string) => t.post("/api/auth/password/change/", {
      token: u.token, form: { old_password: old, new_password1: "new-pass-word-2", new_password2: "new-pass-word-2" }, headers: { "X-Forwarded-For": address },
    });
    expect((await change("wrong-1", "10.6.6.1")).json).toEqual({ old_password: ["Your old password was entered incorrectly. Please enter it again."] });
    expect((await change("wrong-2", "10.6.6.2")).status).toBe(400);
    expect((await change("wrong-3", "10.6.6.3")).status).toBe(400);
    const r = await change("right-pass-1", "10.6.6.4");
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(r.json).toEqual({ detail: `Request was throttled. Expected available in ${r.headers.get("retry-after")} seconds.` });
    // The login counts the same failures, and the password has not changed.
    expect((await login({ username: u.username, password: "right-pass-1" })).status).toBe(429);
    await db().write((tx) => tx.loginFailure.deleteMany({ where: { key: `user:${u.id}` } }));
    expect((await login({ username: u.username, password: "right-pass-1" })).status).toBe(200);

    // The address counter: three wrong old passwords of three accounts from one address.
    for (let i = 0; i < 3; i++) {
      const other = await f.user({ password: "right-pass-1" });
      await t.post("/api/auth/password/change/", { token: other.token, form: { old_password: "wrong", new_password1: "new-pass-word-2", new_password2: "new-pass-word-2" }, headers: { "X-Forwarded-For": "10.6.6.9" } });
    }
    expect((await login({ username: u.username, password: "right-pass-1" }, "10.6.6.9")).status).toBe(429);

    // The site's profile form: the same counter, and the login page's words next to the old password.
    const { jar } = await siteLogin(throttled.url, u.username, "right-pass-1");
    for (let i = 0; i < 3; i++) await change("wrong", `10.6.7.${i}`);
    const body = new FormData();
    const profile = await (await fetch(`${throttled.url}/accounts/profile/`, { headers: { Cookie: jar.header() } })).text();
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(profile)![1];
    for (const [name, value] of Object.entries({ old_password: "right-pass-1", new_password1: "new-pass-word-2", new_password2: "new-pass-word-2", csrfmiddlewaretoken: token })) body.append(`_1_${name}`, value);
    body.append("0", JSON.stringify([{ errors: {}, message: null }, "$K1"]));
    const site = await fetch(`${throttled.url}/accounts/profile/`, {
      method: "POST", headers: { "Next-Action": actionId("app/accounts/profile/actions.ts", "updatePassword"), Accept: "text/x-component", Cookie: jar.header() }, body,
    });
    expect(site.status).toBe(200);
    expect(await site.text()).toMatch(/Too many failed login attempts\. Try again in \d+ seconds\./);
    expect((await login({ username: u.username, password: "right-pass-1" })).status).toBe(429);
  });

  it("is kept small by the hourly upkeep (jobs.prune), which also ends site sessions past their lifetime", async () => {
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    // Failures older than this server's 60 s window (younger than the default's 15 minutes): names
    // tried once, and failures of a name that is over the limit now.
    const u = await f.user({ password: "right-pass-1" });
    for (let i = 0; i < 3; i++) await login({ username: u.username, password: "wrong" });
    const stale = [`name:typo-${u.username}`, "addr:10.8.8.8", `name:${u.username}`];
    await db().write((tx) => tx.loginFailure.createMany({ data: stale.map((key) => ({ key, at: ago(120) })) }));
    const sessionUser = await f.user();
    expect((await siteLogin(throttled.url, sessionUser.username, sessionUser.password)).error).toBeNull();
    await ageSiteSessions(sessionUser.id);
    const { jar: fresh } = await siteLogin(throttled.url, sessionUser.username, sessionUser.password);

    const [id] = await enqueue({ kind: PRUNE_KIND, key: PRUNE_KEY });
    const done = await until(() => getJob(id), (j) => j?.status === "succeeded" || j?.status === "failed", 30_000, 50);
    expect(done).toMatchObject({ status: "succeeded" });
    const deleted = (done!.result as { deleted: Record<string, number> }).deleted;
    expect(Object.keys(deleted).sort()).toEqual(["access_request", "alarm_email_sent", "captcha_used", "job", "login_failure", "pending_activation", "site_session", "telemetry_log", "telemetry_tick"]);
    expect(deleted.login_failure).toBeGreaterThanOrEqual(stale.length);
    expect(deleted.site_session).toBeGreaterThanOrEqual(1);

    const failures = await db().prisma.loginFailure.findMany({ where: { key: { in: stale } } });
    expect(failures.map((r) => [r.key, r.at.getTime() > ago(60).getTime()])).toEqual([0, 1, 2].map(() => [`name:${u.username}`, true]));
    expect((await login({ username: u.username, password: "right-pass-1" })).status).toBe(429);

    const sessions = await db().prisma.siteSession.findMany({ where: { userId: sessionUser.id } });
    expect(sessions).toHaveLength(1);
    expect((await t.get("/api/auth/user/", { headers: { Cookie: fresh.header() } })).json.pk).toBe(sessionUser.id);
  });
});

describe("ENHYDRIS_AUTHENTICATION_REQUIRED (api.md §15.4)", () => {
  let closed: TestServer;
  let c: ReturnType<typeof api>;
  beforeAll(async () => {
    closed = await startServer({ env: { ENHYDRIS_AUTHENTICATION_REQUIRED: "true" } });
    c = api(closed.url);
  });
  afterAll(() => closed?.stop());

  it("answers 401 to anonymous reads, and 404 for missing objects only after that", async () => {
    expectTokenChallenge(await c.get("/api/stations/"), "Authentication credentials were not provided.");
    expectTokenChallenge(await c.get("/api/stations/999999/"), "Authentication credentials were not provided.");
    expectTokenChallenge(await c.get("/api/"), "Authentication credentials were not provided.");
    const u = await f.user();
    expect((await c.get("/api/stations/", { token: u.token })).status).toBe(200);
    expect((await c.get("/api/stations/999999/", { token: u.token })).status).toBe(404);
  });

  it("sends the holder of a site session past its lifetime to the login page", async () => {
    const u = await f.user();
    const { jar } = await siteLogin(closed.url, u.username, u.password);
    expect((await c.get("/?q=Athens", { headers: { Cookie: jar.header() } })).status).toBe(200);
    await ageSiteSessions(u.id);
    const r = await c.get("/?q=Athens", { headers: { Cookie: jar.header() } });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/accounts/login/?next=%2F%3Fq%3DAthens");
  });

  it("keeps login, password reset and OPTIONS open", async () => {
    const u = await f.user();
    expect((await c.post("/api/auth/login/", { form: { username: u.username, password: u.password } })).status).toBe(200);
    expect((await c.post("/api/auth/password/reset/", { form: { email: "someone@example.org" } })).status).toBe(200);
    expect((await c.post("/api/auth/password/reset/confirm/", { form: {} })).status).toBe(400);
    expect((await c.get("/api/auth/password/reset/complete/")).status).toBe(200);
    expect((await c.options("/api/stations/")).status).toBe(204);
  });
});
