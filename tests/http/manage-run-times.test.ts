import { expect, it } from "vitest";
import * as f from "@/tests/support/fixtures";
import { processesApi, recordLines, runsSettled, seriesApi, upload } from "@/tests/support/processes";
import { DIALECT } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { siteForms } from "@/tests/support/site-forms";
import { suiteServer } from "@/tests/support/suite";

/**
 * A process run's line on the management pages (walk-through of 2026-11-26): the time of the
 * first record it wrote is a time of the station's data, so it is shown as the station's data
 * are, in its display zone with the offset ("from 2026-11-23 00:00 (UTC+02:00)"), not as the
 * API's UTC instant ("from 2026-11-22T22:00:00Z"). The server runs the jobs.
 */
const s = suiteServer();

const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

it(`shows where an incremental run started in the station's zone (${DIALECT})`, async () => {
  const admin = await f.user({ superuser: true });
  const sid = await f.station({ name: "Run Times Bridge", displayTimezone: "Etc/GMT-2" });
  const gid = await f.group(sid);
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  await upload(s.http, admin.token, seriesApi(sid, gid, tid), recordLines("2026-11-22T21:00:00Z", [1, 2, 3, 4, 5, 6]));
  const created = await s.http.post(processesApi(sid, gid), { token: admin.token, json: { type: "checks", range_check: { lower_bound: 0, upper_bound: 10 } } });
  expect(created.status, created.text).toBe(201);
  await runsSettled();
  // Two more records, from 22:00 UTC: 00:00 at the station (UTC+02:00).
  await upload(s.http, admin.token, seriesApi(sid, gid, tid), recordLines("2026-11-22T22:00:00Z", [7, 8]));
  await runsSettled();
  const runs = await s.http.get(`${processesApi(sid, gid)}${created.json.id}/runs/`, { token: admin.token });
  expect(runs.json.results[0].from).toBe("2026-11-22T22:00:00Z");

  const { jar, error } = await siteLogin(s.server.url, admin.username, admin.password, new CookieJar());
  expect(error).toBeNull();
  for (const path of [`/manage/stations/${sid}/timeseriesgroups/${gid}/`, `/manage/stations/${sid}/timeseriesgroups/${gid}/processes/${created.json.id}/`]) {
    const page = await siteForms(s.server.url).page(path, jar.header());
    expect(page.status, path).toBe(200);
    expect(text(page.text), path).toContain("2 records written from 2026-11-23 00:00 (UTC+02:00)");
    expect(page.text, path).not.toContain("2026-11-22T22:00:00Z");
  }
});

it(`names a run that computed nothing as such, not "(from scratch)"; counts with thousands separators (${DIALECT})`, async () => {
  const admin = await f.user({ superuser: true });
  const sid = await f.station({ name: "Nothing New Bridge" });
  const gid = await f.group(sid);
  const tid = await f.series(gid, { type: "Initial", timeStep: "10min" });
  await upload(s.http, admin.token, seriesApi(sid, gid, tid), recordLines("2026-11-01T00:00:00Z", Array.from({ length: 1234 }, (_, i) => i % 10)));
  const created = await s.http.post(processesApi(sid, gid), { token: admin.token, json: { type: "checks", range_check: { lower_bound: 0, upper_bound: 10 } } });
  expect(created.status, created.text).toBe(201);
  const pid = created.json.id as number;
  await runsSettled();
  // "Run now" with no new records: the run succeeds and writes nothing. Its `from` is null, as a run from scratch's is (processing.md §1 unchanged).
  const again = await s.http.post(`${processesApi(sid, gid)}${pid}/run/`, { token: admin.token, json: { wait: true } });
  expect(again.status, again.text).toBe(200);
  expect(again.json).toMatchObject({ status: "succeeded", from: null, records_written: 0 });
  expect(Object.keys(again.json).sort()).toEqual(["error", "finished_at", "from", "id", "queued_at", "records_written", "started_at", "status"]);

  const { jar, error } = await siteLogin(s.server.url, admin.username, admin.password, new CookieJar());
  expect(error).toBeNull();
  const processPage = text((await siteForms(s.server.url).page(`/manage/stations/${sid}/timeseriesgroups/${gid}/processes/${pid}/`, jar.header())).text);
  const runs = /Runs (.*?) Process /.exec(processPage)?.[1] ?? "";
  expect(runs).toMatch(/succeeded \d{4}-\d\d-\d\d \d\d:\d\d UTC · Nothing to do: no changes since the last run\. .*succeeded \d{4}-\d\d-\d\d \d\d:\d\d UTC · 1,234 records written \(from scratch\)/);
  expect(runs).not.toContain("0 records written");
  // The group page's last run says the same.
  const groupPage = text((await siteForms(s.server.url).page(`/manage/stations/${sid}/timeseriesgroups/${gid}/`, jar.header())).text);
  expect(groupPage).toContain("Nothing to do: no changes since the last run.");
  expect(groupPage).toContain("1,234 records");
});
