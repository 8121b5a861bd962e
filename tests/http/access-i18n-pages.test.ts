/**
 * The words of access requests on the management pages in Greek (public.md §2, §3): the activity
 * log of /manage/ names the decisions (approve, deny, expire) and the statuses a withdrawn
 * request had (denied, expired) in Greek, and the replication form's interval units are Greek.
 * Each is a word the page looks up by a key made of data, which shows the data itself (English)
 * when the catalogues lack it: the pages are read here with every such value present, and no
 * Latin word may be left in what they show of them. The same in the source, for every value the
 * code can make: tests/unit/i18n-fallback-keys.test.ts. SQLite only: it reads pages.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { PRUNE_KEY, PRUNE_KIND } from "@/lib/jobs/maintenance";
import { enqueue, getJob } from "@/lib/jobs/queue";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";
import { until } from "@/tests/support/wait";

let server: TestServer;
let http: ReturnType<typeof api>;
let superuser: f.TestUser;
let sid: number;
/** Names the test gives (user names): data, not words of the site. */
const DATA: string[] = [];

const DAY = 86_400_000;
const dateIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

async function runUpkeep(): Promise<void> {
  const [id] = await enqueue({ kind: PRUNE_KIND, key: PRUNE_KEY });
  const done = await until(() => getJob(id), (j) => j?.status === "succeeded" || j?.status === "failed", 30_000, 50);
  expect(done).toMatchObject({ status: "succeeded" });
}

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  superuser = await f.user({ superuser: true });
  DATA.push(superuser.username);
  sid = await f.station({ name: "Komboti", displayTimezone: "UTC" });
  await f.series(await f.group(sid), { publiclyAvailable: false });
  const base = `/api/stations/${sid}/accessrequests/`;
  const ask = async () => {
    const who = await f.user();
    DATA.push(who.username);
    const made = await http.post(base, { token: who.token, json: { message: "x" } });
    expect(made.status).toBe(201);
    return { who, id: made.json.id as number };
  };
  // Approved, then expired by the upkeep, then withdrawn: approve, expire, "Withdrew the expired …".
  const expiring = await ask();
  expect((await http.post(`${base}${expiring.id}/approve/`, { token: superuser.token, json: { valid_until: dateIn(3) } })).status).toBe(200);
  await db().write((tx) => tx.accessRequest.update({ where: { id: expiring.id }, data: { validUntil: new Date(`${dateIn(-1)}T00:00:00Z`) } }));
  await runUpkeep();
  expect((await http.delete(`${base}${expiring.id}/`, { token: expiring.who.token })).status).toBe(204);
  // Denied, then withdrawn: deny, "Withdrew the denied …".
  const denied = await ask();
  expect((await http.post(`${base}${denied.id}/deny/`, { token: superuser.token, json: { reason: "Όχι" } })).status).toBe(200);
  expect((await http.delete(`${base}${denied.id}/`, { token: denied.who.token })).status).toBe(204);
  // Approved, then withdrawn: "Withdrew the approved … (the access ended)"; and one pending, withdrawn.
  const approved = await ask();
  expect((await http.post(`${base}${approved.id}/approve/`, { token: superuser.token, json: { valid_until: null } })).status).toBe(200);
  expect((await http.delete(`${base}${approved.id}/`, { token: approved.who.token })).status).toBe(204);
  const pending = await ask();
  expect((await http.delete(`${base}${pending.id}/`, { token: pending.who.token })).status).toBe(204);
});
afterAll(async () => {
  await server?.stop();
});

/** A page in Greek, as the superuser sees it. */
async function greekPage(path: string): Promise<string> {
  const { jar } = await siteLogin(server.url, superuser.username, superuser.password);
  const r = await fetch(`${server.url}${path}`, { headers: { Cookie: jar.header(), "Accept-Language": "el" } });
  expect(r.status).toBe(200);
  return r.text();
}

const decode = (text: string) => text.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
const textOf = (html: string) => decode(html.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ").trim();

/** The Latin words (three letters or more) of a text, less the test's names and the words a Greek page rightly keeps. */
function latinWords(text: string): string[] {
  let rest = text;
  for (const name of [...DATA, "Komboti", "UTC", "e-mail"]) rest = rest.split(name).join(" ");
  return rest.match(/[a-z]{3,}/gi) ?? [];
}

describe("the Greek management pages' words of access requests (public.md §2, §3)", () => {
  it("/manage/: the activity log's actions and the summaries' statuses are Greek", async () => {
    const html = await greekPage("/manage/");
    const items = [...html.matchAll(/<li[^>]*data-action="([a-z_]+)"[^>]*>([\s\S]*?)<\/li>/g)].map((m) => ({ action: m[1], text: textOf(m[2]) }));
    const actions = new Set(items.map((i) => i.action));
    for (const action of ["create", "approve", "deny", "expire", "delete"]) expect(actions, action).toContain(action);
    const badges = Object.fromEntries([...html.matchAll(/<span class="badge action-([a-z_]+)">([^<]*)<\/span>/g)].map((m) => [m[1], m[2]]));
    expect(badges).toMatchObject({ approve: "έγκριση", deny: "απόρριψη", expire: "λήξη", create: "δημιουργία", delete: "διαγραφή" });
    const summaries = items.filter((i) => i.action === "delete").map((i) => i.text).join("\n");
    for (const status of ["απορριφθέν", "ληγμένο", "εγκεκριμένο", "σε εκκρεμότητα"]) expect(summaries).toContain(`(${status})`);
    // Each line's words, but the names it gives, are Greek (the time's "UTC" and the user names aside).
    const left = items.flatMap((i) => latinWords(i.text).map((w) => `${w} (in “${i.text}”)`));
    expect(left).toEqual([]);
  });

  it("/manage/replication/: the interval's units are Greek", async () => {
    const html = await greekPage("/manage/replication/");
    const select = /<select[^>]*name="interval_unit"[^>]*>([\s\S]*?)<\/select>/.exec(html);
    expect(select).not.toBeNull();
    const options = [...select![1].matchAll(/<option[^>]*value="(\d+)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1], decode(m[2])]);
    expect(Object.fromEntries(options)).toEqual({ 60: "λεπτά", 3600: "ώρες", 86400: "ημέρες", 1: "δευτερόλεπτα" });
  });
});
