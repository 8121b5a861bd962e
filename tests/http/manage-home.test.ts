import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { startJobRunner, type JobRunner } from "@/lib/jobs/runner";
import { processKey } from "@/lib/processing/state";
import * as f from "@/tests/support/fixtures";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { siteForms } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";
import { until } from "@/tests/support/wait";

/**
 * `{site}/manage/` lists the processes whose last run failed (management.md §2) of the stations
 * the user may edit, with the error and links to the group's processes and the process. The
 * server runs no jobs here: a runner in this process does, retrying at once, so that a run
 * reaches "failed" (after its five attempts) in a moment instead of minutes.
 */
const s = suiteServer({ env: { ENHYDRIS_JOB_RUNNER: "false" } });
let runner: JobRunner;

beforeAll(() => {
  runner = startJobRunner({ backoff: () => 0, pollMs: 50, maintenance: false });
});
afterAll(() => runner?.stop());

const NO_STEP = "The source time series has no time step, so it cannot be regularized and aggregated.";

async function login(user: f.TestUser): Promise<string> {
  const { jar, error } = await siteLogin(s.server.url, user.username, user.password, new CookieJar());
  expect(error).toBeNull();
  return jar.header();
}

/** A station of `maintainer` whose group aggregates a series without a time step (each run fails), or one with (runs succeed). */
async function stationWithAggregation(name: string, maintainer: f.TestUser, timeStep: string) {
  const sid = await f.station({ name, maintainers: [maintainer.id] });
  const gid = await f.group(sid, { name: `${name} stage`, unitId: await f.unit("m") });
  await f.series(gid, { type: "Initial", timeStep });
  const created = await s.http.post(`/api/stations/${sid}/timeseriesgroups/${gid}/processes/`, {
    token: maintainer.token, json: { type: "aggregation", target_time_step: "1h", method: "mean" },
  });
  expect(created.status, created.text).toBe(201);
  const pid = created.json.id as number;
  const job = await until(() => db().prisma.job.findFirst({ where: { key: processKey(pid) }, orderBy: { id: "desc" } }),
    (j) => j?.status === "failed" || j?.status === "succeeded", 30_000, 50);
  expect(job?.status).toBe(timeStep ? "succeeded" : "failed");
  return { sid, gid, pid };
}

const section = (html: string) => /<section[^>]*id="failed-processes"[\s\S]*?<\/section>/.exec(html)?.[0] ?? null;
const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, " ").trim();

describe("/manage/: processes whose last run failed", () => {
  it("lists the failed processes of the user's stations, with the error and links; not others', not succeeded ones", async () => {
    const editor = await f.user();
    const someoneElse = await f.user();
    const admin = await f.user({ superuser: true });
    const mine = await stationWithAggregation("Agios Nikolaos", editor, "");
    await stationWithAggregation("Kalamaki", editor, "10min");
    const theirs = await stationWithAggregation("Vrontou", someoneElse, "");

    const page = await siteForms(s.server.url).page("/manage/", await login(editor));
    expect(page.status).toBe(200);
    const listed = section(page.text);
    expect(listed).not.toBeNull();
    expect(text(listed!)).toMatch(new RegExp(`^Processes whose last run failed Agios Nikolaos · Agios Nikolaos stage : Hourly mean, no missing values allowed · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC ${NO_STEP.replace(/[.,]/g, "\\$&")}$`));
    expect(listed).toContain(`href="/manage/stations/${mine.sid}/timeseriesgroups/${mine.gid}/#processes"`);
    expect(listed).toContain(`href="/manage/stations/${mine.sid}/timeseriesgroups/${mine.gid}/processes/${mine.pid}/"`);

    // A superuser sees every station's; a user with no failed process sees no such section.
    const all = section((await siteForms(s.server.url).page("/manage/", await login(admin))).text);
    expect(all).toContain(`/processes/${mine.pid}/`);
    expect(all).toContain(`/processes/${theirs.pid}/`);
    expect(section((await siteForms(s.server.url).page("/manage/", await login(await f.user()))).text)).toBeNull();
  });

  it("drops a process once a new run of it is queued", async () => {
    const editor = await f.user();
    const failing = await stationWithAggregation("Tsimovo", editor, "");
    const cookie = await login(editor);
    expect(section((await siteForms(s.server.url).page("/manage/", cookie)).text)).toContain(`/processes/${failing.pid}/`);
    await runner.stop();
    try {
      const queued = await s.http.post(`/api/stations/${failing.sid}/timeseriesgroups/${failing.gid}/processes/${failing.pid}/run/`, { token: editor.token, json: {} });
      expect(queued.status, queued.text).toBe(202);
      expect(section((await siteForms(s.server.url).page("/manage/", cookie)).text)).toBeNull();
    } finally {
      runner = startJobRunner({ backoff: () => 0, pollMs: 50, maintenance: false });
    }
  });
});

describe("/manage/: links to the other management pages", () => {
  const links = (html: string) => /<nav[^>]*aria-label="Administration"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1].match(/href="[^"]*"/g) ?? [];

  it("anyone logged in reaches the synoptic groups; superusers also lookups, users and replication", async () => {
    const plain = await f.user();
    const plainHome = await siteForms(s.server.url).page("/manage/", await login(plain));
    expect(plainHome.status).toBe(200);
    expect(links(plainHome.text)).toEqual(['href="/manage/synoptic/"']);
    const admin = await f.user({ superuser: true });
    const adminHome = await siteForms(s.server.url).page("/manage/", await login(admin));
    expect(links(adminHome.text)).toEqual(['href="/manage/lookups/"', 'href="/manage/users/"', 'href="/manage/synoptic/"', 'href="/manage/replication/"']);
  });
});

describe("/manage/: the stations' last update", () => {
  const lastUpdate = (html: string, sid: number) =>
    new RegExp(`href="/manage/stations/${sid}/"[\\s\\S]*?<td data-label="Last update"[^>]*>([\\s\\S]*?)</td>`).exec(html)?.[1] ?? null;
  const publicLastUpdate = (html: string) => /<dt>Last update<\/dt>\s*<dd>([\s\S]*?)<\/dd>/.exec(html)?.[1] ?? null;

  it("in each station's display zone, written as the public station page writes it", async () => {
    const editor = await f.user();
    const east = await f.station({ name: "Two hours east", maintainers: [editor.id], displayTimezone: "Etc/GMT-2" });
    const west = await f.station({ name: "Three hours west", maintainers: [editor.id], displayTimezone: "Etc/GMT+3" });
    const utc = await f.station({ name: "At Greenwich", maintainers: [editor.id], displayTimezone: "UTC" });
    for (const sid of [east, west, utc]) {
      const tid = await f.series(await f.group(sid), { type: "Initial", timeStep: "10min" });
      await f.addRecords(tid, [["2025-12-31T21:50:00Z", 1]]);
    }
    const home = await siteForms(s.server.url).page("/manage/", await login(editor));
    expect(home.status).toBe(200);
    const shown = (sid: number) => text(lastUpdate(home.text, sid) ?? "");
    expect(shown(east)).toBe("2025-12-31 23:50 (UTC+02:00)");
    expect(shown(west)).toBe("2025-12-31 18:50 (UTC-03:00)");
    expect(shown(utc)).toBe("2025-12-31 21:50 (UTC)");
    expect(lastUpdate(home.text, east)).toMatch(/datetime="2025-12-31T21:50:00Z"/i);
    for (const sid of [east, west, utc]) {
      const station = await s.http.get(`/stations/${sid}/`);
      expect(station.status).toBe(200);
      expect(text(publicLastUpdate(station.text) ?? "")).toBe(shown(sid));
    }
  });
});

describe("/manage/: its wording by role, and no crumb to itself", () => {
  const label = (html: string) => /<label for="manage-q">([^<]*)<\/label>/.exec(html)?.[1];

  it("a superuser searches all stations, an editor their own; the page is not a crumb of its own trail, but of the pages under it", async () => {
    const admin = await f.user({ superuser: true });
    const editor = await f.user();
    await f.station({ name: "Crumbless", maintainers: [editor.id] });
    const adminHome = await siteForms(s.server.url).page("/manage/", await login(admin));
    expect(label(adminHome.text)).toBe("Search all stations");
    expect(adminHome.text).not.toContain('<nav class="breadcrumbs"');
    const editorCookie = await login(editor);
    const editorHome = await siteForms(s.server.url).page("/manage/", editorCookie);
    expect(label(editorHome.text)).toBe("Search your stations");
    expect(editorHome.text).not.toContain('<nav class="breadcrumbs"');
    expect(text((await siteForms(s.server.url).page("/manage/?q=no-such-station-anywhere", await login(admin))).text)).toContain("No station matches this search.");
    expect(text((await siteForms(s.server.url).page("/manage/?q=no-such-station-anywhere", editorCookie)).text)).toContain("No station of yours matches this search.");
    // A page under it: the trail starts at Manage, a link.
    const users = await siteForms(s.server.url).page("/manage/users/", await login(admin));
    expect(users.text).toMatch(/<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="\/manage\/">Manage<\/a><\/li>/);
  });
});
