import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { sourceKey } from "@/lib/replication/sources";
import * as f from "@/tests/support/fixtures";
import { DIALECT } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { actionId, formMessages, siteForms, type SiteForm } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * The synoptic forms and replication's "Run now" carry the management forms' token (management.md
 * §1), as every other management form does: a form whose token is not the session's (forged on
 * another site that got past the Origin check, or opened before the user logged in again) does
 * nothing and says that it has expired. The intact form works.
 */
const s = suiteServer({ env: { ENHYDRIS_JOB_RUNNER: "false" } });
const EXPIRED = "This form has expired (you have logged in again since it was opened). Submit it again.";
const TOKEN = "csrfmiddlewaretoken";

let admin: f.TestUser;
let cookie: string;
let groupId: number;
let stationId: number;
let seriesGroupId: number;

beforeAll(async () => {
  admin = await f.user({ superuser: true });
  stationId = await f.station({ name: "Token Bridge" });
  seriesGroupId = await f.group(stationId);
  const sg = await s.http.post("/api/synopticgroups/", {
    token: admin.token, json: { name: "Token synoptic", slug: `token-synoptic-${Date.now()}`, fresh_time_limit: 3600, stations: [{ station: stationId, timeseries_groups: [{ timeseries_group: seriesGroupId }] }] },
  });
  expect(sg.status, sg.text).toBe(201);
  groupId = sg.json.id as number;
  const { jar, error } = await siteLogin(s.server.url, admin.username, admin.password, new CookieJar());
  expect(error).toBeNull();
  cookie = jar.header();
});

const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
const replaceToken = (fields: [string, string][], token: string): [string, string][] => fields.map(([k, v]) => [k, k === TOKEN ? token : v]);
const withToken = (form: SiteForm, token: string): SiteForm => ({ ...form, hidden: replaceToken(form.hidden, token), shown: replaceToken(form.shown, token) });
const tokenOf = (form: SiteForm) => form.hidden.find(([k]) => k === TOKEN)?.[1];

async function failedWarning(): Promise<number> {
  const warning = await db().write((tx) => tx.synopticWarning.create({
    data: { synopticGroupId: groupId, createdAt: new Date(), recipients: '["a@example.org"]', subject: "s", body: "b", items: "[]", status: "failed", error: "no mail server" },
  }));
  return warning.id;
}

describe(`plain forms with the session's token (${DIALECT})`, () => {
  it("Run now of a replication source queues nothing with another token, and queues with its own", async () => {
    const created = await s.http.post("/api/replication/sources/", { token: admin.token, json: { name: "Token source", url: "https://other.example.org/" } });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as number;
    const site = siteForms(s.server.url);
    const form = await site.form("/manage/replication/", cookie, "Run Token source now");
    expect(tokenOf(form)).toMatch(/^[\w-]{43}$/);
    for (const token of ["forged", ""]) {
      const refused = await site.submit(withToken(form, token), {}, cookie);
      expect(refused.status).toBe(303);
      expect(refused.headers.get("location")).toBe("/manage/replication/?problem=form-expired");
      expect(text((await site.page("/manage/replication/?problem=form-expired", cookie)).text)).toContain(EXPIRED);
    }
    expect(await db().prisma.job.count({ where: { key: sourceKey(id) } })).toBe(0);
    const ran = await site.submit(form, {}, cookie);
    expect(ran.headers.get("location")).toBe(`/manage/replication/?done=run-queued#source-${id}`);
    expect(await db().prisma.job.count({ where: { key: sourceKey(id), status: "queued" } })).toBe(1);
  });

  it("Send again of a failed warning changes nothing with another token, and resends with its own", async () => {
    const warning = await failedWarning();
    const site = siteForms(s.server.url);
    const page = `/manage/synoptic/${groupId}/`;
    const form = await site.form(page, cookie, /^Send the warning of .* again$/);
    const refused = await site.submit(withToken(form, "forged"), {}, cookie);
    expect(refused.status).toBe(200);
    expect(formMessages(refused.text)).toEqual([EXPIRED]);
    expect((await db().prisma.synopticWarning.findUnique({ where: { id: warning } }))!.status).toBe("failed");
    const resent = await site.submit(form, {}, cookie);
    expect(resent.headers.get("location")).toBe(`${page}?resent=1#warnings`);
    expect((await db().prisma.synopticWarning.findUnique({ where: { id: warning } }))!.status).toBe("pending");
  });

  it("deleting a synoptic group does nothing with another token, and deletes with its own", async () => {
    const other = await s.http.post("/api/synopticgroups/", { token: admin.token, json: { name: "Doomed synoptic", slug: `doomed-${Date.now()}`, fresh_time_limit: 3600, stations: [] } });
    expect(other.status, other.text).toBe(201);
    const id = other.json.id as number;
    const site = siteForms(s.server.url);
    const page = `/manage/synoptic/${id}/delete/`;
    const form = await site.form(page, cookie, "Delete the synoptic group");
    const refused = await site.submit(withToken(form, "forged"), {}, cookie);
    expect(refused.status).toBe(200);
    expect(formMessages(refused.text)).toEqual([EXPIRED]);
    expect(await db().prisma.synopticGroup.count({ where: { id } })).toBe(1);
    const deleted = await site.submit(form, {}, cookie);
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/manage/synoptic/?deleted=Doomed%20synoptic");
    expect(await db().prisma.synopticGroup.count({ where: { id } })).toBe(0);
  });
});

describe(`the account's profile forms (${DIALECT})`, () => {
  /** Posts a profile form's action as its script does (the state at "0", the fields under "_1_"). */
  async function post(action: "updateProfile" | "updatePassword", fields: Record<string, string>, jar: string): Promise<string> {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.append(`_1_${name}`, value);
    body.append("0", JSON.stringify([{ errors: {}, message: null }, "$K1"]));
    const r = await fetch(`${s.server.url}/accounts/profile/`, {
      method: "POST", headers: { "Next-Action": actionId("app/accounts/profile/actions.ts", action), Accept: "text/x-component", Cookie: jar, Origin: s.server.url }, body,
    });
    expect(r.status).toBe(200);
    return r.text();
  }

  it("change nothing without the session's token, and save with it", async () => {
    const user = await f.user({ password: "profile-pass-1" });
    const { jar, error } = await siteLogin(s.server.url, user.username, "profile-pass-1", new CookieJar());
    expect(error).toBeNull();
    const page = (await siteForms(s.server.url).page("/accounts/profile/", jar.header())).text;
    const tokens = [...page.matchAll(new RegExp(`name="${TOKEN}" value="([^"]+)"`, "g"))].map((m) => m[1]);
    expect(tokens).toHaveLength(2);
    const password = { old_password: "profile-pass-1", new_password1: "profile-pass-2", new_password2: "profile-pass-2" };
    for (const token of [undefined, "forged"]) {
      const extra: Record<string, string> = token === undefined ? {} : { [TOKEN]: token };
      expect(await post("updateProfile", { username: user.username, first_name: "Forged", last_name: "", ...extra }, jar.header())).toContain(EXPIRED);
      expect(await post("updatePassword", { ...password, ...extra }, jar.header())).toContain(EXPIRED);
    }
    const stored = await db().prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored.firstName).not.toBe("Forged");
    expect((await siteLogin(s.server.url, user.username, "profile-pass-1", new CookieJar())).error).toBeNull();
    expect(await post("updateProfile", { username: user.username, first_name: "Kept", last_name: "", [TOKEN]: tokens[0] }, jar.header())).not.toContain(EXPIRED);
    expect((await db().prisma.user.findUniqueOrThrow({ where: { id: user.id } })).firstName).toBe("Kept");
  });
});

describe(`the synoptic group's form (${DIALECT})`, () => {
  /**
   * Saves as the form's script does: the action's arguments (its previous state, and the form's
   * data) encoded as React encodes them: the root at "0", a FormData argument's fields each
   * under "_<part>_".
   */
  async function save(fields: Record<string, string>): Promise<{ status: number; body: string }> {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.append(`_1_${name}`, value);
    body.append("0", JSON.stringify([{ values: {}, errors: {}, seq: 0 }, "$K1"]));
    const r = await fetch(`${s.server.url}/manage/synoptic/${groupId}/`, {
      method: "POST", headers: { "Next-Action": actionId("app/manage/synoptic/actions.ts", "saveSynopticGroup"), Accept: "text/x-component", Cookie: cookie }, body,
    });
    return { status: r.status, body: await r.text() };
  }

  it("more than 20 warning addresses: the API's message next to the field, nothing saved", async () => {
    const page = (await siteForms(s.server.url).page(`/manage/synoptic/${groupId}/`, cookie)).text;
    const token = new RegExp(`name="${TOKEN}" value="([^"]+)"`).exec(page)![1];
    const group = await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token });
    const typed = Array.from({ length: 21 }, (_, i) => `duty${i}@example.com`).join("\n");
    const refused = await save({
      [TOKEN]: token, id: String(groupId), last_modified: group.json.last_modified as string, name: group.json.name as string, slug: group.json.slug as string,
      display_timezone: "Etc/GMT", fresh_time_limit: "3600", early_warning_emails: typed,
      stations: JSON.stringify([{ station: stationId, timeseries_groups: [{ timeseries_group: seriesGroupId }] }]),
    });
    expect(refused.status).toBe(200);
    expect(refused.body).toContain('"early_warning_emails":["Ensure this field has no more than 20 elements."]');
    expect((await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token })).json.early_warning_emails).toEqual(group.json.early_warning_emails);
  });

  it("a save from a form opened before someone else's change is refused with the stored version shown; saving again overwrites it knowingly", async () => {
    const page = (await siteForms(s.server.url).page(`/manage/synoptic/${groupId}/`, cookie)).text;
    const token = new RegExp(`name="${TOKEN}" value="([^"]+)"`).exec(page)![1];
    const opened = await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token });
    expect(page).toContain(`name="last_modified" value="${opened.json.last_modified as string}"`);
    const meanwhile = await s.http.patch(`/api/synopticgroups/${groupId}/`, { token: admin.token, json: { name: "Renamed meanwhile" } });
    expect(meanwhile.status, meanwhile.text).toBe(200);
    const stored = await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token });
    expect(stored.json.last_modified).not.toBe(opened.json.last_modified);
    const fields = {
      [TOKEN]: token, id: String(groupId), name: "Mine", slug: opened.json.slug as string, display_timezone: "Etc/GMT", fresh_time_limit: "3600", early_warning_emails: "",
      stations: JSON.stringify([{ station: stationId, timeseries_groups: [{ timeseries_group: seriesGroupId }] }]),
    };
    const refused = await save({ ...fields, last_modified: opened.json.last_modified as string });
    expect(refused.status).toBe(200);
    expect(refused.body).toContain("This synoptic group was changed by someone else since you opened it.");
    // The stored version comes back beside the user's, and the form now carries its last_modified.
    expect(refused.body).toContain('"name":"Renamed meanwhile"');
    expect(refused.body).toContain(`"last_modified":"${stored.json.last_modified as string}"`);
    expect((await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token })).json.name).toBe("Renamed meanwhile");
    const saved = await save({ ...fields, last_modified: stored.json.last_modified as string });
    expect(saved.status).toBe(200);
    expect(saved.body).not.toContain("changed by someone else");
    const after = await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token });
    expect(after.json.name).toBe("Mine");
    await s.http.patch(`/api/synopticgroups/${groupId}/`, { token: admin.token, json: { name: "Token synoptic" } });
  });

  it("saves nothing with another token, and saves with the token of its page", async () => {
    const page = (await siteForms(s.server.url).page(`/manage/synoptic/${groupId}/`, cookie)).text;
    const token = new RegExp(`name="${TOKEN}" value="([^"]+)"`).exec(page)?.[1];
    expect(token).toMatch(/^[\w-]{43}$/);
    const group = await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token });
    const fields = {
      id: String(groupId), last_modified: group.json.last_modified as string, name: "Renamed synoptic", slug: group.json.slug as string,
      display_timezone: "Etc/GMT", fresh_time_limit: "3600", early_warning_emails: "",
      stations: JSON.stringify([{ station: stationId, timeseries_groups: [{ timeseries_group: seriesGroupId }] }]),
    };
    for (const forged of ["forged", ""]) {
      const refused = await save({ ...fields, [TOKEN]: forged });
      expect(refused.status).toBe(200);
      expect(refused.body).toContain(EXPIRED);
      expect((await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token })).json.name).toBe("Token synoptic");
    }
    const saved = await save({ ...fields, [TOKEN]: token! });
    expect(saved.status, saved.body.slice(0, 300)).toBe(200);
    expect(saved.body).not.toContain(EXPIRED);
    expect((await s.http.get(`/api/synopticgroups/${groupId}/`, { token: admin.token })).json.name).toBe("Renamed synoptic");
  });
});
