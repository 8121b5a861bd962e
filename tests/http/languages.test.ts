/**
 * The site's languages (public.md §3) through the real server: the footer's switcher route, the
 * choice of a request's language (account > cookie > Accept-Language > English), `<html lang>`,
 * the lookups' Greek descriptions on the pages, the group page's cache per language, and the
 * API, which stays English.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import * as f from "@/tests/support/fixtures";
import { api } from "@/tests/support/http";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

let server: TestServer;
let sid: number;
let gid: number;
let user: f.TestUser;

beforeAll(async () => {
  // One worker: the group page's cache is per process (ADR 18).
  server = await startServer({ env: { ENHYDRIS_WORKERS: "1" } });
  user = await f.user({});
  sid = await f.station({ name: "Arta", displayTimezone: "UTC" });
  const variableId = await db().write((tx) => tx.variable.create({ data: { descr: "Temperature", descrEl: "Θερμοκρασία", lastModified: new Date() } })).then((v) => v.id);
  gid = await f.group(sid, { name: "Air", variableId });
});
afterAll(() => server?.stop());

const page = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers, redirect: "manual" });
const langOf = (html: string) => /<html lang="([^"]*)"/.exec(html)?.[1];
/** The language cookie a response sets (the proxy may set csrftoken beside it). */
const languageCookie = (r: Response) => r.headers.getSetCookie().find((c) => c.startsWith("enhydris_language="));

function switchLanguage(language: string, next: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/language/`, {
    method: "POST", redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url, ...headers },
    body: new URLSearchParams({ language, next }),
  });
}

describe("the language of a page", () => {
  it("is English by default, the browser's language when the site has it, the cookie's over that", async () => {
    expect(langOf(await (await page("/")).text())).toBe("en");
    const greek = await (await page("/", { "Accept-Language": "el-GR,el;q=0.9,en;q=0.5" })).text();
    expect(langOf(greek)).toBe("el");
    expect(greek).toContain(">Σταθμοί</h1>");
    expect(greek).toContain("Χάρτης σταθμών");
    expect(langOf(await (await page("/", { "Accept-Language": "fr-FR, de;q=0.8" })).text())).toBe("en");
    expect(langOf(await (await page("/", { "Accept-Language": "el", Cookie: "enhydris_language=en" })).text())).toBe("en");
    expect(langOf(await (await page("/", { Cookie: "enhydris_language=el" })).text())).toBe("el");
    expect(langOf(await (await page("/", { "Accept-Language": "el", Cookie: "enhydris_language=xx" })).text())).toBe("el");
  });

  it("shows the lookups' Greek descriptions on Greek pages, descr on English ones", async () => {
    const el = await (await page(`/stations/${sid}/`, { Cookie: "enhydris_language=el" })).text();
    expect(el).toContain(">Θερμοκρασία</td>");
    expect(el).toContain(">Στοιχεία</h2>");
    const en = await (await page(`/stations/${sid}/`)).text();
    expect(en).toContain(">Temperature</td>");
    expect(en).toContain(">Details</h2>");
  });

  it("keeps one cached group page per language (ADR 18)", async () => {
    for (let round = 0; round < 3; round++) {
      for (const [language, heading] of [["el", "Διάγραμμα"], ["en", "Chart"]] as const) {
        const r = await page(`/stations/${sid}/timeseriesgroups/${gid}/`, { "Accept-Language": language });
        const html = await r.text();
        expect(r.status).toBe(200);
        expect({ round, language, lang: langOf(html), heading: html.includes(`>${heading}</h2>`) }).toEqual({ round, language, lang: language, heading: true });
        // The first visit of the page in the process renders it without the cache (bypass), then a miss keeps it.
        if (round === 2) expect(r.headers.get("x-enhydris-page-cache"), language).toBe("hit");
      }
    }
  });
});

describe("the 403 and 404 pages (public.md §3)", () => {
  it("name themselves in the page's language in their <title>", async () => {
    const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
    for (const [headers, title] of [[{ "Accept-Language": "el" }, "Η σελίδα δεν βρέθηκε"], [{}, "Page not found"]] as const) {
      const r = await page("/stations/987654321/", headers);
      expect(r.status).toBe(404);
      expect(titleOf(await r.text())).toMatch(new RegExp(`^${title} · `));
    }
  });
});

describe("POST /language/ (the footer's switcher)", () => {
  it("sets the cookie and goes back to the page, a path of this site only", async () => {
    const r = await switchLanguage("el", "/stations/?q=Άρτα");
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/stations/?q=%CE%86%CF%81%CF%84%CE%B1");
    expect(languageCookie(r)).toBe("enhydris_language=el; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax");
    // The page shown (Referer) wins over the form's `next`: the browser's router may have moved on since the footer was drawn.
    const shown = await switchLanguage("el", "/", { Referer: `${server.url}/stations/${sid}/?x=1` });
    expect(shown.headers.get("location")).toBe(`/stations/${sid}/?x=1`);
    const elsewhere = await switchLanguage("el", "/synoptic/", { Referer: "https://other.example/stations/" });
    expect(elsewhere.headers.get("location")).toBe("/synoptic/");
    for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example", "", "javascript:alert(1)"]) {
      const other = await switchLanguage("en", next);
      expect(other.status, next).toBe(303);
      expect(other.headers.get("location"), next).toBe("/");
    }
  });

  it("takes \"\" back to the browser's choice (the cookie goes); refuses a language the site does not have", async () => {
    const auto = await switchLanguage("", "/");
    expect(auto.status).toBe(303);
    expect(languageCookie(auto)).toBe("enhydris_language=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    const r = await switchLanguage("fr", "/");
    expect(r.status).toBe(400);
    expect(await r.text()).toBe("Unknown language.\n");
  });

  it("refuses a post from another site", async () => {
    const r = await switchLanguage("el", "/", { Origin: "https://evil.example" });
    expect(r.status).toBe(403);
    expect(languageCookie(r)).toBeUndefined();
  });

  it("stores a logged-in user's choice in the account, which wins over cookie and browser everywhere", async () => {
    const { jar, error } = await siteLogin(server.url, user.username, user.password);
    expect(error).toBeNull();
    const r = await switchLanguage("el", "/", { Cookie: jar.header() });
    expect(r.status).toBe(303);
    expect((await db().prisma.user.findUniqueOrThrow({ where: { username: user.username } })).language).toBe("el");
    // The session alone (no language cookie), an English browser, even an English cookie: Greek.
    const html = await (await page("/", { Cookie: `${jar.header()}; enhydris_language=en`, "Accept-Language": "en" })).text();
    expect(langOf(html)).toBe("el");
    expect(html).toContain("Αποσύνδεση");
    await switchLanguage("", "/", { Cookie: jar.header() });
    expect((await db().prisma.user.findUniqueOrThrow({ where: { username: user.username } })).language).toBe("");
    expect(langOf(await (await page("/", { Cookie: jar.header(), "Accept-Language": "en" })).text())).toBe("en");
  });
});

describe("the activity log's summaries (stored in English)", () => {
  it("show in the page's language on the manage pages; the API lists them as stored", async () => {
    const admin = await f.user({ superuser: true });
    const http = api(server.url);
    const created = await http.post("/api/stations/", { token: admin.token, json: { name: "Kerkyra", geom: "POINT (19.9 39.6)", owner: await f.organization() } });
    expect(created.status).toBe(201);
    const station = created.json.id as number;
    expect((await http.patch(`/api/stations/${station}/`, { token: admin.token, json: { altitude: 12 } })).status).toBe(200);
    const { jar, error } = await siteLogin(server.url, admin.username, admin.password);
    expect(error).toBeNull();
    const summaries = (html: string) => [...html.matchAll(/<span class="activity-summary">([^<]*)<\/span>/g)].map((m) => m[1]);
    const home = await (await page("/manage/", { Cookie: `${jar.header()}; enhydris_language=el` })).text();
    expect(summaries(home)).toEqual(expect.arrayContaining(["Αλλαγή: σταθμός &quot;Kerkyra&quot; (πεδία: altitude)", "Δημιουργία: σταθμός &quot;Kerkyra&quot;"]));
    const stationPage = await (await page(`/manage/stations/${station}/`, { Cookie: `${jar.header()}; enhydris_language=el` })).text();
    expect(summaries(stationPage)).toEqual(["Αλλαγή: σταθμός &quot;Kerkyra&quot; (πεδία: altitude)", "Δημιουργία: σταθμός &quot;Kerkyra&quot;"]);
    const english = await (await page(`/manage/stations/${station}/`, { Cookie: `${jar.header()}; enhydris_language=en` })).text();
    expect(summaries(english)).toEqual(["Changed station &quot;Kerkyra&quot;: altitude", "Created station &quot;Kerkyra&quot;"]);
    const listed = await http.get(`/api/stations/${station}/activity/`, { token: admin.token, headers: { "Accept-Language": "el", Cookie: "enhydris_language=el" } });
    expect(listed.json.results.map((a: { summary: string }) => a.summary)).toEqual(['Changed station "Kerkyra": altitude', 'Created station "Kerkyra"']);
  });
});

describe("the API", () => {
  it("stays English whatever the browser, the cookie or the account asks", async () => {
    const headers = { "Accept-Language": "el", Cookie: "enhydris_language=el" };
    const missing = await page("/api/stations/999999/", headers);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "Not found." });
    const variables = (await (await page("/api/variables/", headers)).json()) as { results: { descr: string; descr_el: string }[] };
    expect(variables.results.find((v) => v.descr === "Temperature")).toMatchObject({ descr: "Temperature", descr_el: "Θερμοκρασία" });
  });
});
