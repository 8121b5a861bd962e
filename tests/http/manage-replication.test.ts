import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { enqueueSql } from "@/lib/jobs/queue";
import { unseal } from "@/lib/auth/secret-box";
import { REPLICATION_KIND, SOURCE_SECRET_LABELS } from "@/lib/replication/sources";
import type { TestResponse } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { DIALECT, TEST_SECRET_KEY } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { fieldMessages, formMessages, formsOf, siteForms, type SiteForm } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * Replication sources and Detach on the management site (replication.md §1–2, superusers), as a
 * browser without JavaScript posts the forms: a source is added, edited and deleted with the
 * API's rules and messages (the same values refused by both, with the same words), its password
 * and token never appear in a page; anonymous visitors are sent to the login page, other users
 * get the 403 page and change nothing, a form with another session's token does nothing; a
 * superuser detaches a replicated station, which others cannot. What changed is read back
 * through the API. The server runs no jobs: the scheduled runs stay queued.
 */
const s = suiteServer({ env: { ENHYDRIS_JOB_RUNNER: "false" } });

interface Person { user: f.TestUser; cookie: string; token: string }

const LIST = "/manage/replication/";
const ADD = "New replication source";
const EDIT = "Edit replication source";
const EXPIRED = "This form has expired (you have logged in again since it was opened). Submit it again.";
const PASSWORD = "pw-never-shown-7Q";
const TOKEN = "tk-never-shown-9Z";

let admin: Person;
let editor: Person;
let plain: Person;

async function person(options: Parameters<typeof f.user>[0], maintains: boolean): Promise<Person> {
  const user = await f.user(options);
  const { jar, error } = await siteLogin(s.server.url, user.username, user.password, new CookieJar());
  expect(error).toBeNull();
  const cookie = jar.header();
  // The form token is the session's, the same in every form: taken from a page with a form.
  const own = maintains ? `/manage/stations/${await f.station({ maintainers: [user.id] })}/` : null;
  const page = own ?? "/manage/synoptic/new/";
  const r = await site().page(page, cookie);
  expect(r.status, page).toBe(200);
  return { user, cookie, token: /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(r.text)![1] };
}

beforeAll(async () => {
  admin = await person({ superuser: true }, false);
  editor = await person({}, true);
  plain = await person({}, false);
});

const site = () => siteForms(s.server.url);
const api = (path: string) => s.http.get(path, { token: admin.user.token });
const sourceApi = (id: number) => `/api/replication/sources/${id}/`;
const count = () => db().prisma.replicationSource.count();
/** The activity log's entries of a source, oldest first: [action, user, summary]. */
const sourceActivity = async (id: number) => (await db().prisma.activity.findMany({ where: { objectType: "replication_source", objectId: id }, orderBy: { id: "asc" } }))
  .map((a) => [a.action, a.username, a.summary, a.stationId]);

/** Posts `form` with `fields` typed, as `who` (with their own form token), or anonymously. */
function post(form: SiteForm, fields: Record<string, string>, who: Person | null): Promise<TestResponse> {
  const typed: [string, string][] = Object.entries(fields);
  return site().submit(form, who ? [...typed, ["csrfmiddlewaretoken", who.token]] : typed, who?.cookie ?? "");
}

function expectLanded(r: TestResponse, location: RegExp): RegExpExecArray {
  expect(r.status, r.text.slice(0, 500)).toBe(303);
  const found = location.exec(r.headers.get("location") ?? "");
  expect(found, r.headers.get("location") ?? "").not.toBeNull();
  return found!;
}

function expectForbidden(r: TestResponse) {
  expect(r.status).toBe(403);
  expect(r.text).toContain("You do not have permission to see this page");
}

function expectLogin(r: TestResponse, page: string) {
  expect(r.status).toBe(307);
  expect(r.headers.get("location")).toBe(`/accounts/login/?next=${encodeURIComponent(page)}`);
}

const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

/** A stored source with its password and token decrypted (they are stored encrypted, never as typed). */
async function storedSource(id: number) {
  const row = await db().prisma.replicationSource.findUniqueOrThrow({ where: { id } });
  for (const field of ["password", "token"] as const) if (row[field]) expect(row[field]).toMatch(/^v1:[\w-]+$/);
  return { ...row, password: unseal(SOURCE_SECRET_LABELS.password, row.password, TEST_SECRET_KEY), token: unseal(SOURCE_SECRET_LABELS.token, row.token, TEST_SECRET_KEY) };
}

/** No page shows a stored or typed password or token. */
function expectNoSecrets(html: string) {
  expect(html).not.toContain(PASSWORD);
  expect(html).not.toContain(TOKEN);
}

/** The value the re-rendered form shows in `name`. */
function shown(html: string, label: string, name: string): string | undefined {
  return formsOf(html, "").get(label)?.shown.filter(([k]) => k === name).at(-1)?.[1];
}

async function addedSource(fields: Record<string, string>): Promise<number> {
  const r = await post(await site().form(LIST, admin.cookie, ADD), fields, admin);
  return Number(expectLanded(r, /^\/manage\/replication\/\?done=source-created#source-(\d+)$/)[1]);
}

describe(`adding a replication source on the site (${DIALECT})`, () => {
  it("a superuser adds one: listed, the API sees the same source, the interval in the unit chosen; the password is stored but shown nowhere", async () => {
    const id = await addedSource({
      name: "Regional mirror", url: " https://other.example.org/api/ ", username: "mirror", password: PASSWORD, token: "",
      query: "owner:ntua", interval: "2", interval_unit: "3600", enabled: "true", prune: "true",
    });
    const source = await api(sourceApi(id));
    expect(source.json).toMatchObject({ id, name: "Regional mirror", url: "https://other.example.org", username: "mirror", query: "owner:ntua", interval: 7200, enabled: true, prune: true });
    expect(source.json).not.toHaveProperty("password");
    expect((await storedSource(id)).password).toBe(PASSWORD);
    expect(await sourceActivity(id)).toEqual([["create", admin.user.username, `Created replication source "Regional mirror" (https://other.example.org)`, null]]);
    const list = await site().page(`${LIST}?done=source-created`, admin.cookie);
    expect(text(list.text)).toContain("The replication source has been added.");
    expect(text(list.text)).toContain("Regional mirror");
    expect(text(list.text)).toContain("every 2 h");
    expect(list.text).toContain(`href="/manage/replication/${id}/"`);
    expectNoSecrets(list.text);
    const edit = await site().page(`/manage/replication/${id}/`, admin.cookie);
    expect(edit.status).toBe(200);
    expectNoSecrets(edit.text);
    expect(shown(edit.text, EDIT, "password")).toBe("");
    expect(shown(edit.text, EDIT, "interval")).toBe("2");
    expect(shown(edit.text, EDIT, "interval_unit")).toBe("3600");
  });

  // The form's fields (interval in seconds) and the same values as the API takes them.
  const INVALID: { typed: Record<string, string>; api: Record<string, string> }[] = [
    { typed: { url: "ftp://other.example.org/" }, api: { url: "ftp://other.example.org/" } },
    { typed: { url: "" }, api: { url: "" } },
    { typed: { url: "https://user:pw@other.example.org/" }, api: { url: "https://user:pw@other.example.org/" } },
    { typed: { interval: "30", interval_unit: "1" }, api: { interval: "30" } },
    { typed: { interval: "1.5", interval_unit: "3600" }, api: { interval: "1.5" } },
    { typed: { interval: "-1", interval_unit: "60" }, api: { interval: "-60" } },
    { typed: { name: "n".repeat(201) }, api: { name: "n".repeat(201) } },
    { typed: { username: "mirror", password: PASSWORD, token: TOKEN }, api: { username: "mirror", password: PASSWORD, token: TOKEN } },
  ];

  it.each(INVALID)("refuses what the API refuses, with its messages next to the fields, the input kept but no credential: %j", async ({ typed, api: apiFields }) => {
    const base = { name: "Refused source", url: "https://other.example.org/" };
    const before = await count();
    const r = await post(await site().form(LIST, admin.cookie, ADD), { ...base, interval: "0", interval_unit: "60", ...typed }, admin);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const byApi = await s.http.post("/api/replication/sources/", { token: admin.user.token, form: { ...base, ...apiFields } });
    expect(byApi.status).toBe(400);
    const { non_field_errors: general = [], ...fields } = byApi.json as Record<string, string[]>;
    expect(fieldMessages(r.text).sort()).toEqual(Object.values(fields).flat().sort());
    expect(formMessages(r.text).filter((m) => !m.startsWith("Please correct"))).toEqual(general);
    expect(shown(r.text, ADD, "name")).toBe(typed.name ?? base.name);
    expect(shown(r.text, ADD, "url")).toBe(typed.url ?? base.url);
    expect(shown(r.text, ADD, "password")).toBe("");
    expectNoSecrets(r.text);
    expect(await count()).toBe(before);
  });

  it("accepts what the API accepts: 60 seconds, 0 for on demand, no credentials", async () => {
    for (const [interval, unit, seconds] of [["60", "1", 60], ["0", "86400", 0], ["1", "60", 60]] as const) {
      const id = await addedSource({ name: `Every ${interval} × ${unit}`, url: "http://127.0.0.1:1/", interval, interval_unit: unit });
      expect((await api(sourceApi(id))).json).toMatchObject({ interval: seconds, username: "" });
    }
  });
});

describe(`editing and deleting a replication source on the site (${DIALECT})`, () => {
  async function sourceWith(credentials: Record<string, string>): Promise<number> {
    const r = await s.http.post("/api/replication/sources/", {
      token: admin.user.token, json: { name: "Edited source", url: "https://other.example.org/", interval: 3600, ...credentials },
    });
    expect(r.status, r.text).toBe(201);
    return r.json.id as number;
  }
  const stored = storedSource;
  /** A dry run queued for later (as one asked for while the runner is busy), and how many runs of the source are queued. */
  const queueDryRunLater = (id: number) => db().write((tx) => tx.$queryRaw(enqueueSql({
    kind: REPLICATION_KIND, key: `replication:${id}:dry`, payload: { dry_run: true }, delayMs: 3_600_000, maxAttempts: 1,
  })));
  const queuedRuns = (id: number) => db().prisma.job.count({ where: { key: { in: [`replication:${id}`, `replication:${id}:dry`] }, status: "queued" } });
  const edit = (id: number) => site().form(`/manage/replication/${id}/`, admin.cookie, EDIT);

  it("saves the fields shown; a password and token left empty are kept", async () => {
    const id = await sourceWith({ username: "mirror", password: PASSWORD });
    const runForm = await site().form(LIST, admin.cookie, "Run Edited source now");
    expect(await db().prisma.job.count({ where: { key: `replication:${id}`, status: "queued" } })).toBe(1);
    await queueDryRunLater(id);
    expect(await queuedRuns(id)).toBe(2);
    const r = await post(await edit(id), { name: "Renamed source", interval: "30", interval_unit: "60", enabled: "false" }, admin);
    expectLanded(r, new RegExp(`^/manage/replication/\\?done=source-saved#source-${id}$`));
    expect((await api(sourceApi(id))).json).toMatchObject({ name: "Renamed source", interval: 1800, enabled: false, username: "mirror" });
    expect((await stored(id)).password).toBe(PASSWORD);
    expectNoSecrets((await site().page(`/manage/replication/${id}/`, admin.cookie)).text);
    expect((await sourceActivity(id)).at(-1)).toEqual(["change", admin.user.username, `Changed replication source "Renamed source" (https://other.example.org): name, interval, enabled`, null]);
    // Disabled: no "Run now" on the list, and the API refuses a run.
    const list = await site().page(LIST, admin.cookie);
    expect(list.text).toContain(`id="source-${id}"`);
    expect(formsOf(list.text, "").has("Run Renamed source now")).toBe(false);
    const run = await s.http.post(`${sourceApi(id)}run/`, { token: admin.user.token, json: {} });
    expect(run.status).toBe(400);
    expect(run.json).toEqual({ non_field_errors: ["The source is disabled; enable it to run it."] });
    // Run now from a page opened before it was disabled: the page says why nothing was queued.
    const late = await post(runForm, { source: String(id) }, admin);
    expect(late.status).toBe(303);
    expect(late.headers.get("location")).toBe(`/manage/replication/?problem=source-disabled#source-${id}`);
    const shownAfter = await site().page("/manage/replication/?problem=source-disabled", admin.cookie);
    expect(text(shownAfter.text)).toContain("The run was not queued: the source is disabled");
    // Disabling dropped the scheduled run and the queued dry run; nothing was queued since.
    expect(await queuedRuns(id)).toBe(0);
  });

  it("a new token replaces the stored one; the API's rule of username or token applies", async () => {
    const id = await sourceWith({ username: "mirror", password: PASSWORD });
    const clash = await post(await edit(id), { token: TOKEN }, admin);
    expect(clash.status).toBe(200);
    expect(formMessages(clash.text)).toContain("Give either a username and password or a token, not both.");
    expectNoSecrets(clash.text);
    expect((await stored(id)).token).toBe("");
    const r = await post(await edit(id), { username: "", password: "", token: TOKEN }, admin);
    expectLanded(r, /done=source-saved/);
    expect(await stored(id)).toMatchObject({ username: "", password: PASSWORD, token: TOKEN });
    // The log names what changed, never the values of credentials.
    expect((await sourceActivity(id)).at(-1)).toEqual(["change", admin.user.username, `Changed replication source "Edited source" (https://other.example.org): credentials`, null]);
    expect(JSON.stringify(await sourceActivity(id))).not.toMatch(/pw-never|tk-never/);
  });

  it("\"clear the stored credentials\" removes all three; typed with new ones, it is refused and nothing changes", async () => {
    const id = await sourceWith({ username: "mirror", password: PASSWORD });
    const both = await post(await edit(id), { clear_credentials: "true", password: "other-pass" }, admin);
    expect(both.status).toBe(200);
    expect(fieldMessages(both.text)).toEqual(["Leave the password and token empty to clear the credentials, or untick this to set new ones."]);
    expect(both.text).not.toContain("other-pass");
    expect(await stored(id)).toMatchObject({ username: "mirror", password: PASSWORD });
    const cleared = await post(await edit(id), { clear_credentials: "true" }, admin);
    expectLanded(cleared, /done=source-saved/);
    expect(await stored(id)).toMatchObject({ username: "", password: "", token: "" });
    expect(text((await site().page(LIST, admin.cookie)).text)).toContain("none (public data only)");
  });

  it("a form opened before someone else saved the source: refused with the stored values beside the user's; saving again replaces them", async () => {
    const id = await sourceWith({ username: "mirror", password: PASSWORD });
    const form = await edit(id);
    await new Promise((r) => setTimeout(r, 5));
    expect((await s.http.patch(sourceApi(id), { token: admin.user.token, json: { name: "Theirs" } })).status).toBe(200);
    const refused = await post(form, { name: "Mine", password: "typed-never-shown" }, admin);
    expect(refused.status).toBe(200);
    expect(formMessages(refused.text)).toEqual([
      "This replication source was changed by someone else since you opened it.",
      "The values saved now are shown under each field that differs. Save again to replace them with yours.",
    ]);
    expect(shown(refused.text, EDIT, "name")).toBe("Mine");
    expect(refused.text).toMatch(/Saved now: (<!-- -->)?Theirs<\/p>/);
    expect(refused.text).not.toContain("typed-never-shown");
    expectNoSecrets(refused.text);
    expect((await api(sourceApi(id))).json.name).toBe("Theirs");
    // The refused page's form carries the stored version: posting it again is a knowing overwrite.
    const again = formsOf(refused.text, `/manage/replication/${id}/`).get(EDIT)!;
    expectLanded(await post(again, {}, admin), /done=source-saved/);
    expect((await api(sourceApi(id))).json.name).toBe("Mine");
    expect((await stored(id)).password).toBe(PASSWORD);
  });

  it("refuses an invalid interval next to its field, the input kept; nothing saved", async () => {
    const id = await sourceWith({});
    const r = await post(await edit(id), { name: "Kept typing", interval: "59", interval_unit: "1" }, admin);
    expect(r.status).toBe(200);
    expect(fieldMessages(r.text)).toEqual(["Ensure this value is 0 (only on demand) or at least 60."]);
    expect(shown(r.text, EDIT, "name")).toBe("Kept typing");
    expect(shown(r.text, EDIT, "interval")).toBe("59");
    expect((await api(sourceApi(id))).json).toMatchObject({ name: "Edited source", interval: 3600 });
  });

  it("deletes after a confirmation page; its copied stations stay, as stations of this instance", async () => {
    const id = await sourceWith({ token: TOKEN });
    const copied = await f.station({ name: "Copied and kept" });
    await db().write((tx) => tx.station.update({ where: { id: copied }, data: { replicatedFrom: id } }));
    await queueDryRunLater(id);
    expect(await queuedRuns(id)).toBe(2);
    const page = await site().page(`/manage/replication/${id}/delete/`, admin.cookie);
    expect(page.status).toBe(200);
    expect(text(page.text)).toContain("The station copied from it stays");
    expectNoSecrets(page.text);
    const form = await site().form(`/manage/replication/${id}/delete/`, admin.cookie, "Delete the replication source “Edited source”");
    expectLanded(await post(form, {}, admin), /^\/manage\/replication\/\?done=source-deleted$/);
    expect((await api(sourceApi(id))).status).toBe(404);
    expect(await queuedRuns(id)).toBe(0);
    expect((await api(`/api/stations/${copied}/`)).json).not.toHaveProperty("replicated_from");
    expect((await sourceActivity(id)).at(-1)).toEqual(["delete", admin.user.username, `Deleted replication source "Edited source" (https://other.example.org)`, null]);
  });
});

describe(`who may change replication sources on the site (${DIALECT})`, () => {
  /** Each form, opened by a superuser, and whether the change was made. */
  async function forms(): Promise<{ page: string; form: SiteForm; fields: Record<string, string>; done: () => Promise<boolean> }[]> {
    const r = await s.http.post("/api/replication/sources/", { token: admin.user.token, json: { name: "Guarded source", url: "https://other.example.org/" } });
    const id = r.json.id as number;
    const before = await count();
    return [
      { page: LIST, form: await site().form(LIST, admin.cookie, ADD), fields: { name: "Sneaked in", url: "https://evil.example.org/" }, done: async () => (await count()) > before },
      { page: `/manage/replication/${id}/`, form: await site().form(`/manage/replication/${id}/`, admin.cookie, EDIT), fields: { name: "Renamed" }, done: async () => (await api(sourceApi(id))).json.name === "Renamed" },
      { page: `/manage/replication/${id}/delete/`, form: await site().form(`/manage/replication/${id}/delete/`, admin.cookie, "Delete the replication source “Guarded source”"), fields: {}, done: async () => (await api(sourceApi(id))).status === 404 },
    ];
  }

  it("anonymous: sent to the login page; nothing changes", async () => {
    for (const { page, form, fields, done } of await forms()) {
      expectLogin(await post(form, fields, null), page);
      expect(await done(), page).toBe(false);
    }
  });

  it("a logged-in user and an editor of stations: the 403 page, for the pages and the posts; nothing changes", async () => {
    for (const who of [plain, editor]) {
      for (const { page, form, fields, done } of await forms()) {
        expectForbidden(await site().page(page, who.cookie));
        expectForbidden(await post(form, fields, who));
        expect(await done(), page).toBe(false);
      }
    }
  });

  it("a form posted with another session's token: refused as expired; nothing changes", async () => {
    for (const { page, form, fields, done } of await forms()) {
      const r = await site().submit(form, [...Object.entries(fields), ["csrfmiddlewaretoken", "forged"]], admin.cookie);
      expect(r.status, page).toBe(200);
      expect(formMessages(r.text)).toEqual([EXPIRED]);
      expect(await done(), page).toBe(false);
    }
  });
});

describe(`detaching a replicated station on the site (${DIALECT})`, () => {
  async function replicatedStation() {
    const r = await s.http.post("/api/replication/sources/", { token: admin.user.token, json: { name: "Detach source", url: "https://other.example.org/" } });
    const sid = await f.station({ name: "Copied Spring", maintainers: [editor.user.id] });
    await db().write((tx) => tx.station.update({ where: { id: sid }, data: { replicatedFrom: r.json.id as number } }));
    const page = `/manage/stations/${sid}/detach/`;
    return { sid, page, form: await site().form(page, admin.cookie, "Detach from Detach source") };
  }
  const replicatedFrom = async (sid: number) => (await api(`/api/stations/${sid}/`)).json.replicated_from;

  it("a superuser sees the way to detach on the station's page, confirms, and the station becomes editable", async () => {
    const { sid, page, form } = await replicatedStation();
    const view = await site().page(`/manage/stations/${sid}/`, admin.cookie);
    expect(view.status).toBe(200);
    expect(view.text).toContain(`href="${page}"`);
    const confirm = text((await site().page(page, admin.cookie)).text);
    expect(confirm).toContain("Later runs of the source no longer update this station");
    const r = await post(form, {}, admin);
    expectLanded(r, new RegExp(`^/manage/stations/${sid}/\\?done=detached$`));
    expect(await replicatedFrom(sid)).toBeUndefined();
    const log = await api(`/api/stations/${sid}/activity/`);
    expect(log.json.results[0]).toMatchObject({
      user: admin.user.username, action: "change", object_type: "station", object_id: sid,
      summary: `Detached station "Copied Spring" from replication source "Detach source" (https://other.example.org)`,
    });
    const edit = await site().page(`/manage/stations/${sid}/?done=detached`, admin.cookie);
    expect(edit.status).toBe(200);
    expect(text(edit.text)).toContain("The station has been detached");
    expect(formsOf(edit.text, "").has("Maintainers and data viewers")).toBe(true);
    // Its maintainer may edit it now.
    expect((await site().page(`/manage/stations/${sid}/`, editor.cookie)).status).toBe(200);
    // Detached already: the confirmation page says so instead of offering the form.
    const again = await site().page(page, admin.cookie);
    expect(again.status).toBe(200);
    expect(text(again.text)).toContain("This station is not replicated from another instance");
  });

  it("its maintainer and another user do not see it (403) and their posts do nothing; anonymous visitors log in first", async () => {
    const { sid, page, form } = await replicatedStation();
    for (const who of [editor, plain]) {
      expectForbidden(await site().page(`/manage/stations/${sid}/`, who.cookie));
      expectForbidden(await site().page(page, who.cookie));
      expectForbidden(await post(form, {}, who));
      expect(await replicatedFrom(sid)).toBeDefined();
    }
    expectLogin(await post(form, {}, null), page);
    expect(await replicatedFrom(sid)).toBeDefined();
  });

  it("with another session's token: refused as expired; the station stays replicated", async () => {
    const { sid, form } = await replicatedStation();
    const r = await site().submit(form, [["csrfmiddlewaretoken", "forged"]], admin.cookie);
    expect(r.status).toBe(200);
    expect(formMessages(r.text)).toEqual([EXPIRED]);
    expect(await replicatedFrom(sid)).toBeDefined();
  });
});
