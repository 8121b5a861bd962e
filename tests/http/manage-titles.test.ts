import { beforeAll, describe, expect, it } from "vitest";
import * as f from "@/tests/support/fixtures";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { siteForms } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * The <title> of a management page someone may not use (management.md §1): the 403 page's
 * ("Not allowed"), not the page's own, and never the name of what they may not see; a page
 * whose object does not exist says "Page not found". Both in the HTML and in the page's data
 * for React (the browser's tab takes the title from there once the page runs). Those who may
 * use the pages see their own titles. The server runs no jobs: the process made here need not run.
 */
const s = suiteServer({ env: { ENHYDRIS_JOB_RUNNER: "false" } });

const SECRET = "Secret Creek";
let admin: string;
let editor: string;
let other: string;
let paths: Record<string, string>;
/** The pages above for superusers (a superuser may add stations); the station's editor uses the others. */
const SUPERUSER_PAGES = ["Lookups", "Variables", "Edit lookup", "Delete lookup", "Users", "Edit user", "Replication", "New station"];

async function login(user: f.TestUser): Promise<string> {
  const { jar, error } = await siteLogin(s.server.url, user.username, user.password, new CookieJar());
  expect(error).toBeNull();
  return jar.header();
}

/** The page's status and its one <title>. */
async function titleOf(path: string, cookie: string): Promise<{ status: number; title: string; html: string }> {
  const r = await siteForms(s.server.url).page(path, cookie);
  const titles = [...r.text.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]);
  expect(titles, path).toHaveLength(1);
  return { status: r.status, title: titles[0], html: r.text };
}

beforeAll(async () => {
  const adminUser = await f.user({ superuser: true });
  const editorUser = await f.user();
  const sid = await f.station({ name: SECRET, maintainers: [editorUser.id] });
  const gid = await f.group(sid, { name: `${SECRET} stage` });
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  const eid = await f.event(sid, { date: "2024-05-01", report: `${SECRET} flood` });
  const process = await s.http.post(`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`, {
    token: adminUser.token, json: { type: "aggregation", target_time_step: "1h", method: "mean" },
  });
  expect(process.status, process.text).toBe(201);
  const pid = process.json.id as number;
  const synoptic = await s.http.post("/api/synopticgroups/", {
    token: editorUser.token, json: { name: `${SECRET} synoptic`, slug: `secret-creek-${process.json.id}`, fresh_time_limit: 600 },
  });
  expect(synoptic.status, synoptic.text).toBe(201);
  const variable = await f.variable(`${SECRET} depth`);
  const station = `/manage/stations/${sid}/`;
  const group = `${station}timeseriesgroups/${gid}/`;
  paths = {
    "Lookups": "/manage/lookups/",
    "Variables": "/manage/lookups/variables/",
    "Edit lookup": `/manage/lookups/variables/${variable}/`,
    "Delete lookup": `/manage/lookups/variables/${variable}/delete/`,
    "Users": "/manage/users/",
    "Edit user": `/manage/users/${editorUser.id}/`,
    "Replication": "/manage/replication/",
    "New station": "/manage/stations/new/",
    "Edit station": station,
    "Delete station": `${station}delete/`,
    "Edit event": `${station}events/${eid}/`,
    "Delete": `${station}events/${eid}/delete/`,
    "Edit time series group": group,
    "Delete time series group": `${group}delete/`,
    "Edit process": `${group}processes/${pid}/`,
    "Delete process": `${group}processes/${pid}/delete/`,
    "Delete time series": `${group}timeseries/${tid}/delete/`,
    "Upload records": `${group}timeseries/${tid}/upload/`,
    "Edit synoptic group": `/manage/synoptic/${synoptic.json.id}/`,
    "Delete synoptic group": `/manage/synoptic/${synoptic.json.id}/delete/`,
  };
  [admin, editor, other] = await Promise.all([login(adminUser), login(editorUser), login(await f.user())]);
});

describe("the <title> of a management page", () => {
  it("a logged-in user without the right: the 403 page's title, naming nothing of the page", async () => {
    for (const [title, path] of Object.entries(paths)) {
      const page = await titleOf(path, other);
      expect(page.status, path).toBe(403);
      expect(page.html, path).toContain("You do not have permission to see this page");
      expect(page.title, path).toMatch(/^Not allowed · /);
      // Nor in the page's data for React, from which the browser sets the tab's title once the page runs.
      expect(page.html, path).not.toContain(`${title} · `);
      expect(page.html, path).not.toContain(SECRET);
    }
  });

  it("those who may use the page: its own title", async () => {
    for (const [title, path] of Object.entries(paths)) {
      const who = SUPERUSER_PAGES.includes(title) ? admin : editor;
      const page = await titleOf(path, who);
      expect(page.status, path).toBe(200);
      expect(page.title, path).toMatch(new RegExp(`^${title} · `));
    }
  });

  it("a page whose object does not exist: the 404 page's title, for anyone logged in", async () => {
    for (const path of ["/manage/stations/999999/", "/manage/stations/999999/timeseriesgroups/1/", "/manage/lookups/variables/999999/", "/manage/synoptic/999999/", "/manage/stations/1/widgets/1/"]) {
      for (const who of [other, admin]) {
        const page = await titleOf(path, who);
        expect(page.status, path).toBe(404);
        expect(page.title, path).toMatch(/^Page not found · /);
        expect(page.html, path).not.toMatch(/(Edit|Delete) [a-z ]+ · /);
      }
    }
  });

  it("anonymous users are still sent to the login page", async () => {
    const r = await siteForms(s.server.url).page(paths["Edit station"], "");
    expect(r.status).toBe(307);
    expect(r.headers.get("location")).toBe(`/accounts/login/?next=${encodeURIComponent(paths["Edit station"])}`);
  });
});
