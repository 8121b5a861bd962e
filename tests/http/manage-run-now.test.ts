import { describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { processKey } from "@/lib/processing/state";
import { sourceKey } from "@/lib/replication/sources";
import * as f from "@/tests/support/fixtures";
import { processesApi } from "@/tests/support/processes";
import { DIALECT } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { siteForms } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * "Run now" on the management pages (replication.md §1, management.md §2) as a browser without
 * JavaScript posts it: a queued run is confirmed on the page; a source or process deleted since
 * the page was opened queues nothing and the page says so. The server runs no jobs: what was
 * queued stays in the queue to be looked at.
 */
const s = suiteServer({ env: { ENHYDRIS_JOB_RUNNER: "false" } });

async function login(user: f.TestUser): Promise<string> {
  const { jar, error } = await siteLogin(s.server.url, user.username, user.password, new CookieJar());
  expect(error).toBeNull();
  return jar.header();
}

const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
const queued = (key: string) => db().prisma.job.count({ where: { key, status: "queued" } });

describe(`replication's Run now (${DIALECT})`, () => {
  it("queues a run and says so; for a source deleted meanwhile, queues nothing and says the run was not queued", async () => {
    const admin = await f.user({ superuser: true });
    const cookie = await login(admin);
    const source = async (name: string) => {
      const r = await s.http.post("/api/replication/sources/", { token: admin.token, json: { name, url: "https://other.example.org/" } });
      expect(r.status, r.text).toBe(201);
      return r.json.id as number;
    };
    const [kept, gone] = [await source("Kept source"), await source("Gone source")];
    const site = siteForms(s.server.url);
    const keptForm = await site.form("/manage/replication/", cookie, "Run Kept source now");
    const goneForm = await site.form("/manage/replication/", cookie, "Run Gone source now");

    const ran = await site.submit(keptForm, {}, cookie);
    expect(ran.status, ran.text.slice(0, 300)).toBe(303);
    expect(ran.headers.get("location")).toBe(`/manage/replication/?done=run-queued#source-${kept}`);
    expect(await queued(sourceKey(kept))).toBe(1);
    const after = await site.page(ran.headers.get("location")!.replace(/#.*/, ""), cookie);
    expect(text(after.text)).toContain("A run has been queued.");
    // In the activity log, as a process's run is; and with the API's options named.
    const runs = async (id: number) => (await db().prisma.activity.findMany({ where: { objectType: "replication_source", objectId: id, action: "run" }, orderBy: { id: "asc" } }))
      .map((a) => [a.username, a.summary]);
    expect(await runs(kept)).toEqual([[admin.username, `Queued a run of replication source "Kept source" (https://other.example.org)`]]);
    expect((await s.http.post(`/api/replication/sources/${kept}/run/`, { token: admin.token, json: { dry_run: true, prune: true } })).status).toBe(202);
    expect((await runs(kept))[1]).toEqual([admin.username, `Queued a run (dry, pruning) of replication source "Kept source" (https://other.example.org)`]);

    // "Dry run", the form's other button: a run that writes nothing, apart from the real one.
    const dry = await site.submit(keptForm, { run: "dry" }, cookie);
    expect(dry.status, dry.text.slice(0, 300)).toBe(303);
    expect(dry.headers.get("location")).toBe(`/manage/replication/?done=dry-run-queued#source-${kept}`);
    expect(await queued(sourceKey(kept))).toBe(1);
    const dryJobs = await db().prisma.job.findMany({ where: { key: `${sourceKey(kept)}:dry`, status: "queued" } });
    expect(dryJobs.map((j) => JSON.parse(j.payload))).toEqual([{ dryRun: true, prune: true }]);
    expect((await runs(kept))[2]).toEqual([admin.username, `Queued a run (dry) of replication source "Kept source" (https://other.example.org)`]);
    expect(text((await site.page(dry.headers.get("location")!.replace(/#.*/, ""), cookie)).text))
      .toContain("A dry run has been queued: it writes nothing, and its row below will say what a run would do.");

    expect((await s.http.delete(`/api/replication/sources/${gone}/`, { token: admin.token })).status).toBe(204);
    const refused = await site.submit(goneForm, {}, cookie);
    expect(refused.status, refused.text.slice(0, 300)).toBe(303);
    expect(refused.headers.get("location")).toBe("/manage/replication/?problem=source-gone");
    expect(await queued(sourceKey(gone))).toBe(0);
    const told = await site.page(refused.headers.get("location")!, cookie);
    expect(told.status).toBe(200);
    expect(text(told.text)).toContain("The run was not queued: the source no longer exists (someone may have deleted it since you opened the page).");
    expect(text(told.text)).not.toContain("A run has been queued.");
  });
});

describe(`a process's Run now (${DIALECT})`, () => {
  it("for a process deleted meanwhile, queues nothing and the group's page says the run was not queued", async () => {
    const editor = await f.user();
    const cookie = await login(editor);
    const sid = await f.station({ maintainers: [editor.id] });
    const gid = await f.group(sid);
    await f.series(gid, { type: "Initial", timeStep: "10min" });
    const p = await s.http.post(processesApi(sid, gid), { token: editor.token, json: { type: "aggregation", target_time_step: "1h", method: "mean" } });
    expect(p.status, p.text).toBe(201);
    const pid = p.json.id as number;
    const groupPage = `/manage/stations/${sid}/timeseriesgroups/${gid}/`;
    const site = siteForms(s.server.url);
    const form = await site.form(groupPage, cookie, `Run process ${pid}`);
    expect((await s.http.delete(`${processesApi(sid, gid)}${pid}/`, { token: editor.token })).status).toBe(204);

    const refused = await site.submit(form, {}, cookie);
    expect(refused.status, refused.text.slice(0, 300)).toBe(303);
    expect(refused.headers.get("location")).toBe(`${groupPage}?problem=process-gone#processes`);
    expect(await queued(processKey(pid))).toBe(0);
    const told = await site.page(`${groupPage}?problem=process-gone`, cookie);
    expect(told.status).toBe(200);
    expect(text(told.text)).toContain("The run was not queued: the process no longer exists (someone may have deleted it since you opened the page).");
  });
});
