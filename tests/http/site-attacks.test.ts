import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as f from "@/tests/support/fixtures";
import { expectGreekRefusal } from "@/tests/support/http";
import { startServer, type TestServer } from "@/tests/support/server";
import { actionId } from "@/tests/support/site-forms";
import { ageSiteSessions, siteLogin } from "@/tests/support/site-session";
import { until } from "@/tests/support/wait";

/**
 * What an attacker tries on the site beyond the API's checks: links that lead off-site, and
 * server actions called directly (a POST with `Next-Action`, its id taken from the build).
 */
let server: TestServer;
let user: f.TestUser;
let stationName = "";

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_AUTHENTICATION_REQUIRED: "true" } });
  user = await f.user({ password: "pass-word-1" });
  stationName = `Secret station ${Date.now()}`;
  await f.station({ name: stationName });
});
afterAll(async () => {
  await server?.stop();
});

async function sessionCookie(): Promise<string> {
  const { jar, error } = await siteLogin(server.url, user.username, "pass-word-1");
  expect(error).toBeNull();
  return jar.header();
}

describe("the login page's link back (api.md §16)", () => {
  it("never leads off-site, even through characters a browser drops from a link", async () => {
    const cookie = await sessionCookie();
    for (const next of ["/\t/evil.example/x", "/\n/evil.example/x", "/\r\n/evil.example", "//evil.example", "/\\evil.example", "https://evil.example/"]) {
      const r = await fetch(`${server.url}/accounts/login/?next=${encodeURIComponent(next)}`, { headers: { Cookie: cookie } });
      expect(r.status).toBe(200);
      const html = await r.text();
      // The page's address is in Next's payload (inert); what matters is where its links lead.
      expect(html, JSON.stringify(next)).toContain('<a href="/">continue</a>');
      expect([...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]).filter((h) => h.includes("evil.example")), JSON.stringify(next)).toEqual([]);
    }
    const own = await fetch(`${server.url}/accounts/login/?next=${encodeURIComponent("/stations/1/?a=b")}`, { headers: { Cookie: cookie } });
    expect(await own.text()).toContain('href="/stations/1/?a=b"');
  });
});

/** A GET of `path` exactly as written (fetch would turn a backslash into a slash). */
function requestAsIs(path: string): Promise<{ status: number; location: string | undefined }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    request({ host: hostname, port, path }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    }).on("error", reject).end();
  });
}

describe("the trailing-slash redirect (api.md §16)", () => {
  it("stays on the site when the path starts with two slashes or a backslash", async () => {
    for (const [path, location] of [["//evil.example/x", "/evil.example/x/"], ["//evil.example/x?a=1", "/evil.example/x/?a=1"],
      ["/\\/evil.example/x", "/evil.example/x/"], ["///evil.example", "/evil.example"], ["/stations/1", "/stations/1/"]]) {
      const r = await requestAsIs(path);
      expect(r.status, path).toBe(308);
      expect(r.location, path).toBe(location);
    }
  });
});

describe("next-auth's callbackUrl (api.md §2.1)", () => {
  it("goes to the site's root when it is another site's or no URL at all, never a 500", async () => {
    for (const callbackUrl of [`${server.url}.evil.example/`, "http://[::1", "not a url", "https://evil.example/"]) {
      const csrf = await fetch(`${server.url}/accounts/auth/csrf`);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const r = await fetch(`${server.url}/accounts/auth/callback/credentials`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") },
        body: new URLSearchParams({ csrfToken, username: user.username, password: "pass-word-1", callbackUrl, json: "true" }),
      });
      expect(r.status, callbackUrl).toBe(200);
      expect(((await r.json()) as { url: string }).url, callbackUrl).toBe(server.url);
    }
  });
});

describe("server actions called directly", () => {
  const post = (path: string, action: string, body: unknown, cookie?: string) => fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Next-Action": action, "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component", ...(cookie ? { Cookie: cookie } : {}) },
    body: JSON.stringify(body),
  });

  it("the synoptic form's station choices are for logged-in users: an anonymous caller reads no station (authentication required or not)", async () => {
    const action = actionId("app/manage/synoptic/actions.ts", "stationChoicesAction");
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    const anonymous = await post("/manage/synoptic/new/", action, [ids]);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.text()).not.toContain(stationName);
    const loggedIn = await post("/manage/synoptic/new/", action, [ids], await sessionCookie());
    expect(loggedIn.status).toBe(200);
    expect(await loggedIn.text()).toContain(stationName);
  });
});

/**
 * Sends only the head of a POST (its body never follows) and returns the answer: a server that
 * waited to read the body would not answer within `ms`.
 */
function headOnlyPost(path: string, headers: Record<string, string>, ms = 5_000): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: "POST", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(ms, () => req.destroy(new Error(`no answer within ${ms} ms: the server is reading the body`)));
    req.on("error", reject);
    req.flushHeaders();
  });
}

describe("large site form posts without a login", () => {
  const action = () => actionId("app/manage/synoptic/actions.ts", "stationChoicesAction");
  const form = (extra: Record<string, string> = {}) => ({ "Next-Action": action(), "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component", ...extra });

  it("are refused before their body is read (413), with a page that says why", async () => {
    const r = await headOnlyPost("/manage/synoptic/new/", form({ "Content-Length": String(90 << 20) }));
    expect(r.status).toBe(413);
    expect(r.body).toContain("A form sent without logging in may be at most 1 MB. Log in, then send it again.");
    expect(r.body).not.toMatch(/at \S+ \(|node_modules/);
  });

  it("say why in the request's language: the language cookie, else Accept-Language", async () => {
    const greek = await headOnlyPost("/manage/synoptic/new/", form({ "Content-Length": String(90 << 20), "Accept-Language": "el-GR,el;q=0.9,en;q=0.5" }));
    expectGreekRefusal(greek, {
      status: 413, title: "Πολύ μεγάλη φόρμα", english: "Log in",
      says: ["Μια φόρμα που στέλνεται χωρίς σύνδεση μπορεί να είναι το πολύ 1 MB. Συνδεθείτε και στείλτε τη ξανά.", ">Πίσω στον ιστότοπο</a>"],
    });
    // The switcher's cookie wins over the browser's language.
    const chosen = await headOnlyPost("/manage/stations/new/", form({ "Transfer-Encoding": "chunked", "Accept-Language": "en", Cookie: "enhydris_language=el" }));
    expect(chosen.status).toBe(411);
    expect(chosen.body).toContain("Μια φόρμα που στέλνεται χωρίς σύνδεση πρέπει να δηλώνει το μήκος της (Content-Length)");
    const english = await headOnlyPost("/manage/stations/new/", form({ "Transfer-Encoding": "chunked", "Accept-Language": "el", Cookie: "enhydris_language=en" }));
    expect(english.body).toContain('<html lang="en">');
    expect(english.body).toContain("must state its length");
  });

  it("are refused when their length is unstated (411), and a forged, ended or expired session counts as none", async () => {
    const chunked = await headOnlyPost("/manage/stations/new/", form({ "Transfer-Encoding": "chunked" }));
    expect(chunked.status).toBe(411);
    expect(chunked.body).toContain("must state its length");
    const forged = await headOnlyPost("/manage/synoptic/new/", form({ "Content-Length": String(2 << 20), Cookie: "next-auth.session-token=forged.token.value" }));
    expect(forged.status).toBe(413);
    const { jar } = await siteLogin(server.url, user.username, "pass-word-1");
    const csrf = await fetch(`${server.url}/accounts/auth/csrf`, { headers: { Cookie: jar.header() } });
    jar.take(csrf);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const loggedOut = jar.header();
    expect(loggedOut).toContain("next-auth.session-token=");
    jar.take(await fetch(`${server.url}/accounts/auth/signout`, {
      method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.header() },
      body: new URLSearchParams({ csrfToken, json: "true" }),
    }));
    const ended = await headOnlyPost("/manage/synoptic/new/", form({ "Content-Length": String(2 << 20), Cookie: loggedOut }));
    expect(ended.status).toBe(413);
    // A session past its lifetime (14 days after its login) counts as none too.
    const expiring = await sessionCookie();
    await ageSiteSessions(user.id);
    const expired = await headOnlyPost("/manage/synoptic/new/", form({ "Content-Length": String(2 << 20), Cookie: expiring }));
    expect(expired.status).toBe(413);
  });

  it("are read as before with a live session, and small anonymous posts still reach the form", async () => {
    const ids = Array.from({ length: 100 }, (_, i) => i + 1);
    const padded = JSON.stringify([ids]) + " ".repeat(2 << 20);
    const loggedIn = await fetch(`${server.url}/manage/synoptic/new/`, { method: "POST", headers: { ...form(), Cookie: await sessionCookie() }, body: padded });
    expect(loggedIn.status).toBe(200);
    expect(await loggedIn.text()).toContain(stationName);
    const small = await fetch(`${server.url}/manage/synoptic/new/`, { method: "POST", headers: form(), body: JSON.stringify([ids]) });
    expect(small.status).toBe(200);
    expect(await small.text()).not.toContain(stationName);
  });
});

describe("site posts whose body cannot be decoded", () => {
  it("get 400 with a plain message, not Next's 500, and the server says no more", async () => {
    const action = actionId("app/manage/synoptic/actions.ts", "stationChoicesAction");
    const cases: [string, Record<string, string>, string][] = [
      ["/manage/synoptic/new/", { "Next-Action": action, "Content-Type": "text/plain;charset=UTF-8" }, "garbage"],
      ["/manage/synoptic/new/", { "Next-Action": action, "Content-Type": "text/plain;charset=UTF-8" }, '["$Q1"]'],
      ["/manage/synoptic/new/", { "Next-Action": action, "Content-Type": "multipart/form-data; boundary=zzz" }, "garbage"],
      ["/", { "Content-Type": "multipart/form-data; boundary=zz" }, "garbage"],
      ["/stations/", { "Content-Type": "multipart/form-data" }, "--x\r\nContent-Disposition: form-data\r\n"],
    ];
    for (const [path, headers, body] of cases) {
      // This server requires a login: an anonymous post to a page gets the login page first.
      for (const cookie of [...(headers["Next-Action"] ? [undefined] : []), await sessionCookie()]) {
        const r = await fetch(`${server.url}${path}`, { method: "POST", headers: { ...headers, ...(cookie ? { Cookie: cookie } : {}) }, body });
        const label = `${path} ${JSON.stringify(headers)} ${body} ${cookie ? "logged in" : "anonymous"}`;
        expect(r.status, label).toBe(400);
        expect(await r.text(), label).toBe("Bad request: the form's data could not be read.\n");
        // The request's log line (and its metrics) say what was sent, not the 500 Next meant.
        const id = r.headers.get("x-request-id");
        const line = await until(async () => server.output().split("\n").find((l) => l.includes(`"req_id":"${id}","method":"POST"`)), Boolean);
        expect(JSON.parse(line!), label).toMatchObject({ level: "info", status: 400 });
      }
    }
    // A well-formed call still works.
    const ok = await fetch(`${server.url}/manage/synoptic/new/`, { method: "POST", headers: { "Next-Action": action, "Content-Type": "text/plain;charset=UTF-8", Cookie: await sessionCookie() }, body: "[[1]]" });
    expect(ok.status).toBe(200);
  });
});
