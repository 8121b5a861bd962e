import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { processKey } from "@/lib/processing/state";
import * as f from "@/tests/support/fixtures";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { siteForms } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * What the management pages call things, as an operator reads them (walk-through of
 * 2026-11-26): a group without a name is called by its variable on every page, as its form
 * promises ("May be empty: the variable names it then"); display zones are offered with their
 * offset, since Etc/GMT-2 is two hours east; the pages do not cite the specification's files;
 * the replication page leads back to /manage/ as the other management pages do; a replicated
 * station, read-only here, is listed to its maintainers without a link to an edit page they
 * cannot open, and to superusers with a link to its read-only page, where they may detach it.
 * The server runs no jobs: the process made here need not run.
 */
const s = suiteServer({ env: { ENHYDRIS_JOB_RUNNER: "false" } });

const VARIABLE = "Stage of the walk";
let cookie: string;
let station: string;
let group: string;
let upload: string;
let process: string;
let processId: number;
let synoptic: string;
let replicated: number;
/** A maintainer of the replicated station, not a superuser. */
let keeperCookie: string;

beforeAll(async () => {
  const admin = await f.user({ superuser: true });
  const sid = await f.station({ name: "Walk Bridge" });
  const gid = await f.group(sid, { name: "", variableId: await f.variable(VARIABLE), unitId: await f.unit("wm", [], "Walk metres") });
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  const created = await s.http.post(`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`, {
    token: admin.token, json: { type: "aggregation", target_time_step: "1h", method: "mean" },
  });
  expect(created.status, created.text).toBe(201);
  station = `/manage/stations/${sid}/`;
  group = `${station}timeseriesgroups/${gid}/`;
  upload = `${group}timeseries/${tid}/upload/`;
  const checks = await s.http.post(`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`, {
    token: admin.token, json: { type: "checks", range_check: { lower_bound: 0, upper_bound: 10 } },
  });
  expect(checks.status, checks.text).toBe(201);
  processId = created.json.id as number;
  process = `${group}processes/${processId}/`;
  const sg = await s.http.post("/api/synopticgroups/", {
    token: admin.token, json: { name: "Walk synoptic", slug: "walk-synoptic", fresh_time_limit: 600, stations: [{ station: sid, timeseries_groups: [{ timeseries_group: gid }] }] },
  });
  expect(sg.status, sg.text).toBe(201);
  synoptic = `/manage/synoptic/${sg.json.id}/`;
  const source = await s.http.post("/api/replication/sources/", { token: admin.token, json: { name: "Walk source", url: "https://other.example.org/" } });
  expect(source.status, source.text).toBe(201);
  const keeper = await f.user();
  replicated = await f.station({ name: "Walk Copied Spring", maintainers: [keeper.id] });
  const kept = await siteLogin(s.server.url, keeper.username, keeper.password, new CookieJar());
  expect(kept.error).toBeNull();
  keeperCookie = kept.jar.header();
  await db().write((tx) => tx.station.update({ where: { id: replicated }, data: { replicatedFrom: source.json.id as number } }));
  const { jar, error } = await siteLogin(s.server.url, admin.username, admin.password, new CookieJar());
  expect(error).toBeNull();
  cookie = jar.header();
});

async function html(path: string): Promise<string> {
  const r = await siteForms(s.server.url).page(path, cookie);
  expect(r.status, path).toBe(200);
  return r.text;
}

/** The text of the page's breadcrumb trail. */
function crumbs(page: string): string {
  const nav = /<nav[^>]*aria-label="Breadcrumb"[^>]*>([\s\S]*?)<\/nav>/i.exec(page);
  expect(nav, "a breadcrumb trail").not.toBeNull();
  return [...nav![1].matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((li) => li[1].replace(/<[^>]+>/g, "").trim()).join(" › ");
}

describe("a group without a name", () => {
  it.each([["the station", () => station], ["the group", () => group], ["the upload", () => upload], ["the process", () => process]])(
    "is called by its variable on %s page", async (_, path) => {
      const page = await html(path());
      expect(page).toContain(VARIABLE);
      expect(page).not.toMatch(/Group \d+/);
    });

  it("is named by its variable in the upload and process pages' breadcrumbs", async () => {
    expect(crumbs(await html(upload))).toContain(`Walk Bridge › ${VARIABLE} › Upload`);
    expect(crumbs(await html(process))).toContain(`Walk Bridge › ${VARIABLE} › Process`);
  });

  it("is not named twice in the upload page's lead", async () => {
    const page = (await html(upload)).replace(/<!-- -->/g, "");
    expect(page).toContain(`${VARIABLE} (`);
    expect(page).not.toContain(`${VARIABLE} · ${VARIABLE}`);
  });
});

describe("display time zones", () => {
  it.each([["the new station", "/manage/stations/new/"], ["the new synoptic group", "/manage/synoptic/new/"]])(
    "are offered on %s form with their offset", async (_, path) => {
      const page = await html(path);
      expect(page).toMatch(/<option value="Etc\/GMT-2"[^>]*>UTC\+02:00 \(Etc\/GMT-2\)<\/option>/);
      expect(page).toMatch(/<option value="Etc\/GMT\+5"[^>]*>UTC-05:00 \(Etc\/GMT\+5\)<\/option>/);
    });
});

it("the group page explains its processes without citing the specification", async () => {
  const page = await html(group);
  expect(page).toContain("Run automatically after every write to their source series");
  expect(page).not.toContain("processing.md");
});

describe("a replicated station on /manage/", () => {
  const rowOf = (page: string) => /<tr[^>]*>(?:(?!<\/tr>)[\s\S])*Walk Copied Spring[\s\S]*?<\/tr>/.exec(page)?.[0];

  it("is listed to its maintainer as read-only, without a link to its edit page (which answers 403)", async () => {
    const list = await siteForms(s.server.url).page(`/manage/?q=${encodeURIComponent("Walk Copied Spring")}`, keeperCookie);
    const row = rowOf(list.text);
    expect(row, "the station's row").toBeDefined();
    expect(row).toContain("replicated, read-only");
    expect(row).not.toContain(`href="/manage/stations/${replicated}/"`);
    expect(row).toContain(`href="/stations/${replicated}/"`);
    const edit = await siteForms(s.server.url).page(`/manage/stations/${replicated}/`, keeperCookie);
    expect(edit.status).toBe(403);
    expect(edit.text).toContain("is read-only here until an administrator detaches it");
  });

  it("is listed to a superuser as read-only, with a link to its page, which has no forms but the way to detach it", async () => {
    const row = rowOf(await html(`/manage/?q=${encodeURIComponent("Walk Copied Spring")}`));
    expect(row, "the station's row").toBeDefined();
    expect(row).toContain("replicated, read-only");
    expect(row).toContain(`href="/manage/stations/${replicated}/"`);
    const page = (await html(`/manage/stations/${replicated}/`)).replace(/<!-- -->/g, "");
    expect(page).toContain("<title>Replicated station");
    expect(page).toContain("Replicated from");
    expect(page).toContain(`href="/manage/stations/${replicated}/detach/"`);
    expect(page).toContain("Detach from Walk source…");
    expect(page).not.toMatch(/<form\b[^>]*class="manage-form/);
  });

  it("leaves the other stations linked to their edit pages", async () => {
    const page = await html(`/manage/?q=${encodeURIComponent("Walk Bridge")}`);
    expect(page).toContain(`href="${station}"`);
    expect(page).not.toContain("replicated, read-only");
  });
});

it("the replication page has the management pages' breadcrumb trail back to /manage/", async () => {
  expect(crumbs(await html("/manage/replication/"))).toBe("Manage › Replication");
});

it("a run queued again after a failed attempt says so beside the attempt's error", async () => {
  const error = "The source time series has no time step, so it cannot be regularized and aggregated.";
  await db().prisma.job.updateMany({ where: { key: processKey(processId), status: "queued" }, data: { attempts: 1, error } });
  try {
    for (const path of [group, process]) {
      const page = (await html(path)).replace(/<!-- -->/g, "");
      expect(page, path).toContain(`the last attempt failed and will be retried: ${error}`);
    }
  } finally {
    await db().prisma.job.updateMany({ where: { key: processKey(processId), status: "queued" }, data: { attempts: 0, error: null } });
  }
});

it("the synoptic form's buttons of a station name the station, for those who hear them", async () => {
  const page = await html(synoptic);
  for (const name of ["Move Walk Bridge up", "Move Walk Bridge down", "Remove Walk Bridge"]) expect(page).toContain(`aria-label="${name}"`);
});

it("the group page describes its processes with the unit's symbol, as the process page does", async () => {
  const page = (await html(group)).replace(/<!-- -->/g, "");
  expect(page).toContain("Checked: range 0…10 wm");
  expect(page).not.toContain("Checked: range 0…10 wm (Walk metres)");
});
