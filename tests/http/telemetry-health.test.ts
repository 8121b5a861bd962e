import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { checkFeeds } from "@/lib/telemetry";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startFakeMeteoView2, type FakeMeteoView2, type MeteoView2Reading } from "@/tests/support/fake-vendors/meteoview2";
import { scratchDatabase, startServer, type ScratchDatabase, type TestServer } from "@/tests/support/server";
import { CookieJar, siteLogin } from "@/tests/support/site-session";
import { startSmtp, type SmtpListener } from "@/tests/support/smtp";
import { sleep } from "@/tests/support/wait";

/**
 * Feed health (telemetry.md §4): a mapped series with no new record for stale_after_minutes, or
 * whose last stuck_after_values values are identical, gets one e-mail (to alert_emails, or the
 * station's maintainers), and one more when it recovers; the state is kept, so that neither
 * more checks nor a restart send it again.
 */
let database: ScratchDatabase;
let server: TestServer;
let smtp: SmtpListener;
let vendor: FakeMeteoView2;
/** The fake's readings, by sensor: the tests change them. */
const readings: Record<string, MeteoView2Reading[]> = { "42a": [], "43b": [] };
const env = () => ({ ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1", ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: String(smtp.port), ENHYDRIS_SITE_URL: "http://127.0.0.1" });

/** Local times in UTC, `minutesAgo` before now, as MeteoView2 writes them. */
const ago = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString().slice(0, 16);

beforeAll(async () => {
  smtp = await startSmtp();
  vendor = await startFakeMeteoView2({ readings: (id) => readings[id] ?? [] });
  database = await scratchDatabase();
  server = await startServer({ databaseUrl: database.url, env: env() });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await vendor?.close();
  await smtp?.close();
  await database?.dispose();
});

async function fetchNow(path: string, token: string) {
  const r = await api(server.url).post(`${path}fetch/`, { token, json: { wait: true } });
  expect(r.status, r.text).toBe(200);
  expect(r.json.fetch.status, r.text).toBe("ok");
}

/** The "Telemetry feeds that need attention" section of /manage/ as `user` sees it ("" when absent). */
async function feedsOnManageHome(user: { username: string; password: string }): Promise<string> {
  const { jar, error } = await siteLogin(server.url, user.username, user.password, new CookieJar());
  expect(error).toBeNull();
  const r = await fetch(`${server.url}/manage/`, { headers: { Cookie: jar.header() } });
  expect(r.status).toBe(200);
  // React separates adjacent text with <!-- -->.
  const html = (await r.text()).replace(/<!-- -->/g, "");
  const start = html.indexOf('id="feeds"');
  return start < 0 ? "" : html.slice(start, html.indexOf("</section>", start));
}

/** No more than `n` messages, after waiting a while for any that would come. */
async function exactly(n: number) {
  await sleep(3000);
  expect(smtp.messages.map((m) => m.subject), "e-mails").toHaveLength(n);
}

describe("feed health", () => {
  it("e-mails once when a feed goes stale, once when it recovers, and not again after a restart", async () => {
    const editor = await f.user();
    const sid = await f.station({ name: "Hobbiton", maintainers: [editor.id] });
    const gid = await f.group(sid, { name: "Air temperature" });
    const path = `/api/stations/${sid}/telemetry/`;
    readings["42a"] = [{ time: ago(180), value: 1 }, { time: ago(170), value: 2 }];
    const put = await api(server.url).put(path, { token: editor.token, json: {
      type: "meteoview2", data_timezone: "UTC", fetch_interval_minutes: 1440, device_locator: vendor.apiUrl, username: "alice@example.org", password: "topsecretapikey",
      remote_station_id: "1852", stale_after_minutes: 60, alert_emails: ["duty@example.org"], sensors: [{ sensor_id: "42a", timeseries_group: gid }],
    } });
    expect(put.status, put.text).toBe(201);
    await fetchNow(path, editor.token);
    const [stale] = await smtp.waitFor(1);
    expect(stale.to).toEqual(["duty@example.org"]);
    expect(stale.subject).toBe("[127.0.0.1] Hobbiton: Air temperature is stale");
    expect(stale.text).toContain("It has had no new record for more than 60 minutes");
    expect(stale.text).toContain(`http://127.0.0.1/manage/stations/${sid}/telemetry/`);
    expect(stale.text).not.toContain("topsecretapikey");
    // Still stale: more fetches and checks send nothing.
    await fetchNow(path, editor.token);
    await checkFeeds({});
    await exactly(1);
    // /manage/ lists the station for its editors, not for others.
    const feeds = await feedsOnManageHome(editor);
    expect(feeds).toContain("Hobbiton");
    expect(feeds).toContain("stale: Air temperature");
    expect(feeds).toContain(`href="/manage/stations/${sid}/telemetry/"`);
    expect(await feedsOnManageHome(await f.user())).toBe("");
    // A restart keeps the state.
    await server.stop();
    server = await startServer({ databaseUrl: database.url, migrate: false, env: env() });
    await checkFeeds({});
    await exactly(1);
    expect((await db().prisma.telemetrySensor.findFirstOrThrow({ where: { timeseriesGroupId: gid } })).staleSince).not.toBeNull();
    // New readings: recovered, one e-mail.
    readings["42a"] = [...readings["42a"], { time: ago(5), value: 3 }];
    await fetchNow(path, editor.token);
    const messages = await smtp.waitFor(2);
    expect(messages[1].subject).toBe("[127.0.0.1] Hobbiton: Air temperature has recovered");
    await checkFeeds({});
    await exactly(2);
    expect(await feedsOnManageHome(editor)).toBe("");
    // Two hours on without a new record: stale again; back to now: recovered again.
    expect(await checkFeeds({ nowMs: Date.now() + 2 * 3600_000 })).toEqual({ checked: 1, alerts: 1 });
    expect(await checkFeeds({})).toEqual({ checked: 1, alerts: 1 });
    await smtp.waitFor(4);
    expect(smtp.messages.map((m) => m.subject.replace(/^.*: /, ""))).toEqual(["Air temperature is stale", "Air temperature has recovered", "Air temperature is stale", "Air temperature has recovered"]);
    smtp.messages.length = 0;
  }, 180_000);

  /**
   * A maintainer's station whose feed (one meteoview2 sensor) has sent the same value three times,
   * fetched once: the stuck-feed e-mail is on its way.
   */
  async function stuckFeed(o: { email: string; language?: string; station: string; group: string; sensor: string; value: number }) {
    const maintainer = await f.user({ email: o.email });
    if (o.language) await db().write((tx) => tx.user.update({ where: { id: maintainer.id }, data: { language: o.language } }));
    const sid = await f.station({ name: o.station, maintainers: [maintainer.id] });
    const gid = await f.group(sid, { name: o.group });
    const path = `/api/stations/${sid}/telemetry/`;
    readings[o.sensor] = [1, 2, 3].map((k) => ({ time: ago(30 - k), value: o.value }));
    const put = await api(server.url).put(path, { token: maintainer.token, json: {
      type: "meteoview2", data_timezone: "UTC", fetch_interval_minutes: 1440, device_locator: vendor.apiUrl, username: "alice@example.org", password: "topsecretapikey",
      remote_station_id: "1852", stuck_after_values: 3, sensors: [{ sensor_id: o.sensor, timeseries_group: gid }],
    } });
    expect(put.status, put.text).toBe(201);
    await fetchNow(path, maintainer.token);
    return { maintainer, sid, path };
  }

  it("e-mails the station's maintainers once when a feed is stuck, and once when its values change again", async () => {
    const { maintainer, path } = await stuckFeed({ email: "keeper@example.org", station: "Bree", group: "Humidity", sensor: "43b", value: 55 });
    const [stuck] = await smtp.waitFor(1);
    expect(stuck.to).toEqual(["keeper@example.org"]);
    expect(stuck.subject).toBe("[127.0.0.1] Bree: Humidity is stuck");
    expect(stuck.text).toContain("Its last 3 values are identical");
    readings["43b"] = [...readings["43b"], { time: ago(10), value: 55 }];
    await fetchNow(path, maintainer.token);
    await exactly(1);
    readings["43b"] = [...readings["43b"], { time: ago(5), value: 56 }];
    await fetchNow(path, maintainer.token);
    const messages = await smtp.waitFor(2);
    expect(messages[1].subject).toBe("[127.0.0.1] Bree: Humidity has recovered");
    await exactly(2);
  }, 120_000);

  it("e-mails a maintainer whose account chose Greek in Greek (public.md §3)", async () => {
    smtp.messages.length = 0;
    const { sid } = await stuckFeed({ email: "fylakas@example.org", language: "el", station: "Άρτα", group: "Υγρασία", sensor: "44c", value: 70 });
    const [stuck] = await smtp.waitFor(1);
    expect(stuck.to).toEqual(["fylakas@example.org"]);
    expect(stuck.subject).toBe("[127.0.0.1] Άρτα: η ροή Υγρασία κόλλησε");
    expect(stuck.text).toContain("Η ροή της «Υγρασία» (αισθητήρας «44c») στον σταθμό «Άρτα» κόλλησε.\nΟι τελευταίες 3 τιμές της είναι ίδιες");
    expect(stuck.text).toContain(`Η τηλεμετρία του σταθμού: http://127.0.0.1/manage/stations/${sid}/telemetry/`);
    expect(stuck.text).toMatch(/Ελέγχθηκε στις \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./);
  }, 120_000);
});
