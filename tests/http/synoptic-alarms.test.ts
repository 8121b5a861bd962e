/**
 * Early warnings (synoptic.md §3) end to end on the dialect under test: records uploaded through
 * the API queue the evaluation of the synoptic groups that show them; a crossing sends one
 * e-mail through a real SMTP listener, listing every station and variable in alarm; the same
 * series and kind warns again only after it has been back within bounds; rate-of-change
 * failures; warnings are recorded (also without addresses) and listed to the group's editors;
 * a refusing SMTP server is retried without losing the warning.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db";
import { enqueue } from "@/lib/jobs/queue";
import { evaluateSynopticGroup, SEND_ATTEMPTS, SEND_KIND } from "@/lib/synoptic/alarms";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { mailSettings, startSmtp, type SmtpListener } from "@/tests/support/smtp";
import { until } from "@/tests/support/wait";

let smtp: SmtpListener;
let server: TestServer;
let http: ReturnType<typeof api>;
let admin: f.TestUser;
let owner: f.TestUser;
let other: f.TestUser;
let stage: { variable: number; unit: number };
let temperature: { variable: number; unit: number };

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    env: mailSettings(smtp, { from: "alarms@example.org", url: "https://flood.example.org", name: "Enhydris" }),
  });
  http = api(server.url);
  admin = await f.user({ superuser: true });
  owner = await f.user();
  other = await f.user();
  const v = await f.variable("Stage");
  stage = { variable: v, unit: await f.unit("m", [v]) };
  const t = await f.variable("Temperature");
  temperature = { variable: t, unit: await f.unit("°C", [t]) };
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const DAY = "2025-06-01";
let slugs = 0;

interface Gauge { station: number; group: number; series: number; path: string }

/** A station of `owner` with one group and its Initial series. */
async function gauge(name: string, kind = stage, precision = 2, options: { dataViewers?: number[]; publiclyAvailable?: boolean } = {}): Promise<Gauge> {
  const station = await f.station({ name, dataViewers: options.dataViewers ?? [] }, owner.id);
  const group = await f.group(station, { name: kind === stage ? "Stage" : "Air temperature", precision, variableId: kind.variable, unitId: kind.unit });
  const series = await f.series(group, { type: "Initial", timeStep: "10min", publiclyAvailable: options.publiclyAvailable ?? true });
  return { station, group, series, path: `/api/stations/${station}/timeseriesgroups/${group}/timeseries/${series}/data/` };
}

async function synoptic(token: string, stations: { gauge: Gauge; limits: Record<string, unknown> }[], emails = ["duty@example.com", "chief@example.com"]) {
  const r = await http.post("/api/synopticgroups/", {
    token,
    json: {
      name: "Flood watch", slug: `flood-${++slugs}`, display_timezone: "Etc/GMT-2", fresh_time_limit: 3600, early_warning_emails: emails,
      stations: stations.map(({ gauge: g, limits }) => ({ station: g.station, timeseries_groups: [{ timeseries_group: g.group, ...limits }] })),
    },
  });
  expect(r.status, r.text).toBe(201);
  return r.json as { id: number; slug: string; stations: unknown[] };
}

const jobsOf = (groupId: number) => db().prisma.job.findMany({ where: { key: `synoptic:${groupId}` }, orderBy: { id: "asc" } });
const warningsOf = (groupId: number) => db().prisma.synopticWarning.findMany({ where: { synopticGroupId: groupId }, orderBy: { id: "asc" } });

/** Uploads UTC records to a gauge (as its station's creator), then waits until the evaluations this queued have run. */
async function upload(g: Gauge, lines: string, groups: number[]): Promise<void> {
  const before = new Map<number, number>();
  for (const id of groups) before.set(id, Math.max(0, ...(await jobsOf(id)).map((j) => j.id)));
  const r = await http.post(g.path, { token: owner.token, form: { timeseries_records: lines, timezone: "UTC" } });
  expect(r.status, r.text).toBe(204);
  for (const id of groups) {
    // Up to a minute: on a machine running two suites at once an evaluation waits its turn for the CPU.
    const jobs = await until(() => jobsOf(id), (js) => js.some((j) => j.id > before.get(id)! && (j.status === "succeeded" || j.status === "failed"))
      && !js.some((j) => j.status === "queued" || j.status === "running"), 60_000, 20);
    const last = jobs[jobs.length - 1];
    expect(last.status, last.error ?? "").toBe("succeeded");
  }
}

describe("the acceptance example: a river gauge crosses its high limit", () => {
  let a: Gauge;
  let b: Gauge;
  let group: { id: number; slug: string };

  beforeAll(async () => {
    a = await gauge("Arachthos bridge");
    b = await gauge("Louros gauge");
    group = await synoptic(owner.token, [{ gauge: a, limits: { high_limit: 3 } }, { gauge: b, limits: { high_limit: 3 } }]);
    await upload(a, `${DAY} 10:00,2.1,\n`, [group.id]);
    await upload(b, `${DAY} 10:00,2.2,\n`, [group.id]);
  });

  it("values within bounds send nothing", async () => {
    expect(await warningsOf(group.id)).toEqual([]);
    expect(smtp.messages).toHaveLength(0);
  });

  it("a value above the limit: within seconds the value is high and one e-mail has gone to every address", async () => {
    await upload(a, `${DAY} 10:10,3.2,\n`, [group.id]);
    const [mail] = await smtp.waitFor(1);
    expect(smtp.messages).toHaveLength(1);
    expect(mail.from).toBe("alarms@example.org");
    expect(mail.to).toEqual(["duty@example.com", "chief@example.com"]);
    expect(mail.subject).toBe("Enhydris early warning (Arachthos bridge)");
    expect(mail.text).toBe(
      `Early warning of the synoptic group "Flood watch" (https://flood.example.org/synoptic/${group.slug}/). Times are in Etc/GMT-2 (UTC+02:00).\n`
      + "\n"
      + "Arachthos bridge Stage 2025-06-01 12:10 3.20 m (high limit 3 m)\n",
    );
    const latest = (await http.get(`/api/synopticgroups/${group.id}/latest/`)).json;
    expect(latest[0]).toMatchObject({ last_common_date: "2025-06-01T10:10:00Z", values: [{ value: 3.2, status: "high" }] });
    expect(latest[1]).toMatchObject({ values: [{ value: 2.2, status: "ok" }] });
  });

  it("a second high value sends nothing", async () => {
    await upload(a, `${DAY} 10:20,3.5,\n`, [group.id]);
    expect(await warningsOf(group.id)).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);
  });

  it("an edit of the synoptic group keeps the alarm in force", async () => {
    const current = (await http.get(`/api/synopticgroups/${group.id}/`)).json;
    const reordered = [...current.stations].reverse().map((s: { timeseries_groups: object[] }) => ({ ...s, timeseries_groups: s.timeseries_groups.map((g) => ({ ...g, title: "Water level" })) }));
    expect((await http.put(`/api/synopticgroups/${group.id}/`, { token: owner.token, json: { ...current, stations: reordered } })).status).toBe(200);
    await upload(a, `${DAY} 10:25,3.6,\n`, [group.id]);
    expect(await warningsOf(group.id)).toHaveLength(1);
  });

  it("back within bounds, then a new crossing, sends a second e-mail", async () => {
    await upload(a, `${DAY} 10:30,2.5,\n`, [group.id]);
    expect(await warningsOf(group.id)).toHaveLength(1);
    expect(await db().prisma.synopticAlarm.count({ where: { synopticTimeseriesGroup: { synopticGroupStation: { synopticGroupId: group.id } } } })).toBe(0);
    await upload(a, `${DAY} 10:40,3.1,\n`, [group.id]);
    const mails = await smtp.waitFor(2);
    expect(mails).toHaveLength(2);
    expect(mails[1].text).toContain("\nArachthos bridge Water level 2025-06-01 12:40 3.10 m (high limit 3 m)\n");
  });

  it("another station crossing lists the alarms still in force too", async () => {
    await upload(b, `${DAY} 10:40,3.25,\n`, [group.id]);
    const mails = await smtp.waitFor(3);
    expect(mails).toHaveLength(3);
    expect(mails[2].subject).toBe("Enhydris early warning (Louros gauge)");
    expect(mails[2].text).toBe(
      `Early warning of the synoptic group "Flood watch" (https://flood.example.org/synoptic/${group.slug}/). Times are in Etc/GMT-2 (UTC+02:00).\n`
      + "\n"
      + "Louros gauge Water level 2025-06-01 12:40 3.25 m (high limit 3 m)\n"
      + "\n"
      + "Still out of bounds since earlier warnings:\n"
      + "Arachthos bridge Water level 2025-06-01 12:40 3.10 m (high limit 3 m)\n",
    );
  });

  it("the warnings are recorded and listed to the group's editors, newest first", async () => {
    const path = `/api/synopticgroups/${group.id}/warnings/`;
    expect((await http.get(path)).status).toBe(401);
    expect((await http.get(path, { token: other.token })).status).toBe(403);
    expect((await http.get("/api/synopticgroups/999999/warnings/", { token: owner.token })).status).toBe(404);
    const r = await http.get(path, { token: owner.token });
    expect(r.status, r.text).toBe(200);
    expect(r.json.count).toBe(3);
    const [newest] = r.json.results;
    expect(Object.keys(newest)).toEqual(["id", "created", "status", "sent", "error", "recipients", "withheld", "subject", "body", "alarms"]);
    expect(newest).toMatchObject({ status: "sent", error: null, recipients: ["duty@example.com", "chief@example.com"], subject: "Enhydris early warning (Louros gauge)" });
    // In the synoptic group's order (the edit put Louros first).
    expect(newest.alarms).toEqual([
      { station: "Louros gauge", variable: "Water level", kind: "high", time: Date.parse("2025-06-01T10:40:00Z") / 1000, value: 3.25, precision: 2, unit: "m", limit: 3, fresh: true },
      { station: "Arachthos bridge", variable: "Water level", kind: "high", time: Date.parse("2025-06-01T10:40:00Z") / 1000, value: 3.1, precision: 2, unit: "m", limit: 3, fresh: false },
    ]);
    expect((await http.get(path, { token: admin.token })).json.count).toBe(3);
  });

  it("an evaluation of the same data again changes nothing", async () => {
    expect(await evaluateSynopticGroup(group.id)).toEqual({ raised: 0, cleared: 0, warning: null });
  });
});

describe("low limits and rate of change", () => {
  it("a rise faster than the thresholds, then a fall below the low limit", async () => {
    const g = await gauge("Komboti", temperature, 1);
    const group = await synoptic(owner.token, [{ gauge: g, limits: { title: "Air temperature", low_limit: 0, rate_of_change: { symmetric: false, thresholds: [{ delta_t: "10min", allowed_diff: 2 }] } } }], ["met@example.com"]);
    const before = smtp.messages.length;
    await upload(g, `${DAY} 10:00,5.0,\n${DAY} 10:10,5.5,\n`, [group.id]);
    expect(await warningsOf(group.id)).toHaveLength(0);
    await upload(g, `${DAY} 10:20,8.0,\n`, [group.id]);
    let mails = await smtp.waitFor(before + 1);
    expect(mails[before].subject).toBe("Enhydris early warning (Komboti)");
    expect(mails[before].text.split("\n").slice(2)).toEqual(["Komboti Air temperature 2025-06-01 12:20 8.0 °C: +2.5 in 10min (> 2)", ""]);
    // A fall is not bounded by a rise's threshold: the rate-of-change alarm ends, the low one begins.
    await upload(g, `${DAY} 10:30,-1.0,\n`, [group.id]);
    mails = await smtp.waitFor(before + 2);
    expect(mails[before + 1].text.split("\n").slice(2)).toEqual(["Komboti Air temperature 2025-06-01 12:30 -1.0 °C (low limit 0 °C)", ""]);
    const alarms = await db().prisma.synopticAlarm.findMany({ where: { synopticTimeseriesGroup: { synopticGroupStation: { synopticGroupId: group.id } } } });
    expect(alarms.map((a) => [a.kind, Number(a.since)])).toEqual([["low", Date.parse("2025-06-01T10:30:00Z") / 1000]]);
  });

  it("the change summed over several steps (implied thresholds) is named as such", async () => {
    const g = await gauge("Arta", temperature, 1);
    const group = await synoptic(owner.token, [{ gauge: g, limits: { rate_of_change: { symmetric: true, thresholds: [{ delta_t: "10min", allowed_diff: 1 }] } } }], ["met@example.com"]);
    const before = smtp.messages.length;
    // 30 minutes after the last record: each 10-minute step allows 1, so 3 in all; 3.5 is too much.
    await upload(g, `${DAY} 10:00,10.0,\n${DAY} 10:30,13.5,\n`, [group.id]);
    const mails = await smtp.waitFor(before + 1);
    expect(mails[before].text.split("\n").slice(2)).toEqual(["Arta Air temperature 2025-06-01 12:30 13.5 °C: +3.5 in 30min (> 3, thresholds summed)", ""]);
  });
});

describe("the e-mail's language (public.md §3)", () => {
  it("an address whose account chose Greek gets the warning in Greek; the others and the record stay English", async () => {
    const greek = await f.user({ email: "meteo-el@example.com" });
    await db().write((tx) => tx.user.update({ where: { id: greek.id }, data: { language: "el" } }));
    const g = await gauge("Petra", temperature, 1);
    const group = await synoptic(owner.token, [{ gauge: g, limits: { title: "Air temperature", low_limit: 0, rate_of_change: { symmetric: true, thresholds: [{ delta_t: "10min", allowed_diff: 1 }] } } }], ["met@example.com", "Meteo-EL@example.com"]);
    const before = smtp.messages.length;
    await upload(g, `${DAY} 10:00,5.0,\n${DAY} 10:30,8.5,\n`, [group.id]);
    const mails = (await smtp.waitFor(before + 2)).slice(before);
    const el = mails.find((m) => m.to.includes("Meteo-EL@example.com"))!;
    const en = mails.find((m) => m.to.includes("met@example.com"))!;
    expect(el.to).toEqual(["Meteo-EL@example.com"]);
    expect(el.subject).toBe("Enhydris: έγκαιρη προειδοποίηση (Petra)");
    expect(el.text).toBe(
      `Έγκαιρη προειδοποίηση της συνοπτικής ομάδας «Flood watch» (https://flood.example.org/synoptic/${group.slug}/). Οι ώρες δίνονται στη ζώνη ώρας Etc/GMT-2 (UTC+02:00).\n`
      + "\n"
      + "Petra Air temperature 2025-06-01 12:30 8,5 °C: +3,5 σε 30min (> 3, με άθροισμα κατωφλίων)\n",
    );
    expect(en.to).toEqual(["met@example.com"]);
    expect(en.subject).toBe("Enhydris early warning (Petra)");
    expect(en.text.split("\n").slice(2)).toEqual(["Petra Air temperature 2025-06-01 12:30 8.5 °C: +3.5 in 30min (> 3, thresholds summed)", ""]);
    const [warning] = await until(() => warningsOf(group.id), (ws) => ws[0]?.status === "sent", 30_000, 50);
    expect(warning).toMatchObject({ subject: "Enhydris early warning (Petra)", body: en.text });
  });
});

describe("warnings without addresses, private data, a failing SMTP server", () => {
  it("a group without addresses records its warnings and sends nothing", async () => {
    const g = await gauge("Quiet gauge");
    const group = await synoptic(owner.token, [{ gauge: g, limits: { high_limit: 1 } }], []);
    const before = smtp.messages.length;
    await upload(g, `${DAY} 10:00,1.5,\n`, [group.id]);
    const [warning] = await warningsOf(group.id);
    expect(warning).toMatchObject({ status: "no_recipients", recipients: "[]", subject: "Enhydris early warning (Quiet gauge)" });
    expect(await db().prisma.job.count({ where: { key: `synoptic-warning:${warning.id}` } })).toBe(0);
    expect(smtp.messages).toHaveLength(before);
  });

  it("private values reach the e-mails only while the group's creator may read them", async () => {
    const reader = await f.user();
    const g = await gauge("Private gauge", stage, 2, { dataViewers: [reader.id], publiclyAvailable: false });
    const group = await synoptic(reader.token, [{ gauge: g, limits: { high_limit: 1 } }], ["reader@example.com"]);
    const before = smtp.messages.length;
    await upload(g, `${DAY} 10:00,1.5,\n`, [group.id]);
    expect(await warningsOf(group.id)).toHaveLength(1);
    await upload(g, `${DAY} 10:10,0.5,\n`, [group.id]);
    // The creator is no longer a data viewer of the station: nothing more about it is sent.
    expect((await http.patch(`/api/stations/${g.station}/`, { token: admin.token, json: { data_viewers: [] } })).status).toBe(200);
    await upload(g, `${DAY} 10:20,1.7,\n`, [group.id]);
    expect(await warningsOf(group.id)).toHaveLength(1);
    await smtp.waitFor(before + 1);
    expect(smtp.messages.slice(before).map((m) => m.to)).toEqual([["reader@example.com"]]);
  });

  it("an SMTP server that refuses: the warning is recorded, retried, then sent", async () => {
    const g = await gauge("Stormy gauge");
    const group = await synoptic(owner.token, [{ gauge: g, limits: { high_limit: 1 } }], ["duty@example.com"]);
    const before = smtp.messages.length;
    smtp.refuse(1);
    await upload(g, `${DAY} 10:00,1.5,\n`, [group.id]);
    const path = `/api/synopticgroups/${group.id}/warnings/`;
    const refused = await until(() => http.get(path, { token: owner.token }), (r) => r.json.results[0]?.error !== null);
    expect(refused.json.results[0]).toMatchObject({ status: "pending", sent: null });
    expect(refused.json.results[0].error).toContain("451");
    expect(smtp.refused).toBe(1);
    // The queue tries again after 5 s.
    const mails = await smtp.waitFor(before + 1, 20_000);
    expect(mails[before].subject).toBe("Enhydris early warning (Stormy gauge)");
    const sent = await until(() => http.get(path, { token: owner.token }), (r) => r.json.results[0].status === "sent");
    expect(sent.json.results[0]).toMatchObject({ status: "sent", error: null });
    expect(sent.json.results[0].sent).toMatch(/^\d{4}-\d\d-\d\dT/);
    const [job] = await db().prisma.job.findMany({ where: { key: `synoptic-warning:${refused.json.results[0].id}` }, orderBy: { id: "desc" } });
    expect(job).toMatchObject({ status: "succeeded", attempts: 2 });
  }, 40_000);
});

describe("the hourly cap of warnings per recipient (ENHYDRIS_ALARM_EMAILS_PER_HOUR, 10 by default)", () => {
  const busy = "busy@example.com";
  const warningsJson = async (groupId: number) => (await http.get(`/api/synopticgroups/${groupId}/warnings/`, { token: owner.token })).json.results;
  /** Waits until the e-mail job of the group's newest warning has finished; that warning as the API lists it. */
  async function newestWarningDone(groupId: number) {
    const [newest] = await warningsOf(groupId).then((ws) => ws.slice(-1));
    const job = await until(() => db().prisma.job.findFirst({ where: { key: `synoptic-warning:${newest.id}` }, orderBy: { id: "desc" } }),
      (j) => j?.status === "succeeded" || j?.status === "failed", 20_000);
    expect(job!.status, job!.error ?? "").toBe("succeeded");
    return (await warningsJson(groupId))[0];
  }

  it("an address that has had 10 warnings this hour gets no more: later ones are recorded, not sent, and say so; an hour later it gets them again", async () => {
    // Ten warnings to the address, sent by the e-mail jobs of the queue.
    const filler = await synoptic(owner.token, [{ gauge: await gauge("Filler gauge"), limits: { high_limit: 100 } }], [busy]);
    const before = smtp.messages.length;
    for (let i = 0; i < 10; i++) {
      const { id } = await db().write((tx) => tx.synopticWarning.create({
        data: { synopticGroupId: filler.id, createdAt: new Date(), recipients: JSON.stringify([busy]), subject: `Filler ${i}`, body: "b", items: "[]", status: "pending" },
      }));
      await enqueue({ kind: SEND_KIND, key: `synoptic-warning:${id}`, payload: { warning: id }, maxAttempts: SEND_ATTEMPTS });
    }
    await smtp.waitFor(before + 10, 30_000);
    expect(smtp.messages.slice(before).map((m) => m.to)).toEqual(Array(10).fill([busy]));

    // A warning to it and another address goes to the other address only, and lists the one left out.
    const shared = await gauge("Shared gauge");
    const both = await synoptic(owner.token, [{ gauge: shared, limits: { high_limit: 3 } }], [busy, "calm@example.com"]);
    await upload(shared, `${DAY} 10:00,3.5,\n`, [both.id]);
    expect(await newestWarningDone(both.id)).toMatchObject({ status: "sent", error: null, recipients: [busy, "calm@example.com"], withheld: [busy] });
    await smtp.waitFor(before + 11);
    expect(smtp.messages.slice(before + 10).map((m) => m.to)).toEqual([["calm@example.com"]]);

    // A warning to it alone is recorded, not sent (nor tried again), whatever the case of the address.
    const alone = await gauge("Lonely gauge");
    const only = await synoptic(owner.token, [{ gauge: alone, limits: { high_limit: 3 } }], ["BUSY@example.com"]);
    await upload(alone, `${DAY} 10:00,3.5,\n`, [only.id]);
    const withheld = await newestWarningDone(only.id);
    expect(withheld).toMatchObject({ status: "withheld", sent: null, error: null, recipients: ["BUSY@example.com"], withheld: ["BUSY@example.com"] });
    expect(withheld.subject).toBe("Enhydris early warning (Lonely gauge)");
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.messages).toHaveLength(before + 11);

    // An hour later the address gets warnings again.
    await db().write((tx) => tx.alarmEmailSent.updateMany({ where: { recipient: busy }, data: { sentAt: new Date(Date.now() - 3_601_000) } }));
    await upload(alone, `${DAY} 10:10,2.5,\n`, [only.id]);
    await upload(alone, `${DAY} 10:20,3.6,\n`, [only.id]);
    expect(await newestWarningDone(only.id)).toMatchObject({ status: "sent", withheld: [] });
    const [mail] = (await smtp.waitFor(before + 12)).slice(before + 11);
    expect(mail).toMatchObject({ to: ["BUSY@example.com"], subject: "Enhydris early warning (Lonely gauge)" });
    expect((await warningsJson(only.id)).map((w: { status: string }) => w.status)).toEqual(["sent", "withheld"]);
  }, 90_000);
});

describe("every writer of records evaluates the groups that show the series", () => {
  it("a checks process writing the Checked series (the group's default) raises the alarm", async () => {
    const g = await gauge("Kalamas checked");
    // Disabled: the Checked series exists (empty) but nothing writes it yet.
    const created = await http.post(`/api/stations/${g.station}/timeseriesgroups/${g.group}/processes/`, {
      token: owner.token, json: { type: "checks", enabled: false, range_check: { lower_bound: 0, upper_bound: 100 } },
    });
    expect(created.status, created.text).toBe(201);
    const group = await synoptic(owner.token, [{ gauge: g, limits: { high_limit: 3 } }], ["checked@example.com"]);
    const before = smtp.messages.length;
    // The Initial series' write is evaluated, but the default series (Checked) has no data yet.
    await upload(g, `${DAY} 10:00,3.2,\n`, [group.id]);
    expect(await warningsOf(group.id)).toEqual([]);
    const evaluations = (await jobsOf(group.id)).length;
    // Enabled, the process runs and writes 3.2 into the Checked series: that write evaluates the group.
    const enabled = await http.patch(`/api/stations/${g.station}/timeseriesgroups/${g.group}/processes/${created.json.id}/`, { token: owner.token, json: { enabled: true } });
    expect(enabled.status, enabled.text).toBe(200);
    const [warning] = await until(() => warningsOf(group.id), (ws) => ws.length > 0, 20_000);
    expect((await jobsOf(group.id)).length).toBeGreaterThan(evaluations);
    const mails = await smtp.waitFor(before + 1);
    expect(mails[before].to).toEqual(["checked@example.com"]);
    expect(mails[before].text).toContain("Kalamas checked Stage 2025-06-01 12:00 3.20 m (high limit 3 m)\n");
    expect(warning.subject).toBe("Enhydris early warning (Kalamas checked)");
  }, 40_000);
});
