/**
 * Access requests (public.md §2), through the real server on either database: request →
 * approval → the private series readable → reminder and expiry by the hourly upkeep (run through
 * the job queue) → unreadable again; denial; withdrawal; one pending request per user and
 * station; permissions; the e-mails, received by a real SMTP listener; the activity log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALREADY_PENDING, ALREADY_READER, NOT_AFTER_TODAY, NOT_PENDING, NOTHING_PROTECTED } from "@/lib/access/requests";
import { db } from "@/lib/db";
import { PRUNE_KEY, PRUNE_KIND } from "@/lib/jobs/maintenance";
import { enqueue, getJob } from "@/lib/jobs/queue";
import { api, FORBIDDEN, UNAUTHENTICATED } from "@/tests/support/http";
import { fieldMessages, siteForms } from "@/tests/support/site-forms";
import { siteLogin } from "@/tests/support/site-session";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { mailSettings, startSmtp, type Received, type SmtpListener } from "@/tests/support/smtp";
import { until } from "@/tests/support/wait";

let server: TestServer;
let smtp: SmtpListener;
let http: ReturnType<typeof api>;

let superuser: f.TestUser;
let creator: f.TestUser;
let maintainer: f.TestUser;
let stranger: f.TestUser;
let sid: number;
let gid: number;
let privateTs: number;
/** A station whose series are all public. */
let openStation: number;

const DAY = 86_400_000;
const dateIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
const midnight = (date: string) => new Date(`${date}T00:00:00Z`);

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    env: mailSettings(smtp, { from: "noreply@example.org", url: "https://enhydris.example.org", name: "Enhydris test" }),
  });
  http = api(server.url);
  superuser = await f.user({ superuser: true, email: "admin@example.org" });
  creator = await f.user({ email: "creator@example.org" });
  maintainer = await f.user({ email: "maintainer@example.org" });
  stranger = await f.user();
  const vid = await f.variable("Rainfall");
  const uid = await f.unit("mm", [vid]);
  sid = await f.station({ name: "Private", displayTimezone: "UTC", maintainers: [maintainer.id] }, creator.id);
  gid = await f.group(sid, { precision: 1, variableId: vid, unitId: uid });
  privateTs = await f.series(gid, { type: "Initial", publiclyAvailable: false });
  await f.addRecords(privateTs, [["2020-01-01T00:00:00Z", 1], ["2020-01-01T00:10:00Z", 2]]);
  openStation = await f.station({ name: "Open" }, creator.id);
  await f.series(await f.group(openStation, { variableId: vid, unitId: uid }), { publiclyAvailable: true });
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const base = (station = sid) => `/api/stations/${station}/accessrequests/`;
const dataPath = () => `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${privateTs}/data/`;
const RECORDS = "2020-01-01 00:00,1.0,\r\n2020-01-01 00:10,2.0,\r\n";

/** The first e-mail to `address` whose subject starts with `subject`, received after `after` messages. */
async function mailTo(address: string, subject: string, after: number): Promise<Received> {
  const match = (m: Received) => m.to.includes(address) && m.subject.startsWith(subject);
  const found = await until(async () => smtp.messages.slice(after).find(match), (m) => m !== undefined, 15_000, 50);
  if (!found) throw new Error(`no e-mail "${subject}…" to ${address}; received: ${smtp.messages.slice(after).map((m) => `${m.to} ${m.subject}`).join("; ")}`);
  return found;
}

/** Runs the hourly upkeep through the job queue, as the job runner does; its counts. */
async function runUpkeep(): Promise<Record<string, number>> {
  const [id] = await enqueue({ kind: PRUNE_KIND, key: PRUNE_KEY });
  const done = await until(() => getJob(id), (j) => j?.status === "succeeded" || j?.status === "failed", 30_000, 50);
  expect(done).toMatchObject({ status: "succeeded" });
  return (done!.result as { deleted: Record<string, number> }).deleted;
}

async function activitySummaries(): Promise<string[]> {
  const r = await http.get(`/api/stations/${sid}/activity/?page_size=100`, { token: maintainer.token });
  expect(r.status).toBe(200);
  return (r.json.results as { object_type: string; action: string; summary: string }[])
    .filter((a) => a.object_type === "access_request").map((a) => `${a.action}: ${a.summary}`);
}

describe("an access request's life (public.md §2)", () => {
  it("request → approval → readable → reminder → expiry → unreadable, with its e-mails and activity", async () => {
    const requester = await f.user({ email: "reader@example.org" });
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(403);

    // The request, form-encoded; the maintainer is told.
    let before = smtp.messages.length;
    const made = await http.post(base(), { token: requester.token, form: { message: "For my thesis on floods." } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      station: sid, user: requester.id, username: requester.username, message: "For my thesis on floods.", status: "pending",
      decided: null, decided_by: null, valid_until: null, reason: "",
    });
    expect(made.json.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const rid = made.json.id as number;
    const asked = await mailTo("maintainer@example.org", "Access request for station", before);
    expect(asked.subject).toBe('Access request for station "Private"');
    expect(asked.from).toBe("noreply@example.org");
    expect(asked.text).toContain(`The user "${requester.username}" <reader@example.org> asks on Enhydris test to read the protected data of station "Private".`);
    expect(asked.text).toContain("For my thesis on floods.");
    expect(asked.text).toContain("https://enhydris.example.org/manage/");
    expect(asked.text).toContain(`/api/stations/${sid}/accessrequests/${rid}/approve/`);
    // Not to the creator, nor the superusers, when the station has maintainers.
    expect(smtp.messages.slice(before).filter((m) => m.to.includes("creator@example.org") || m.to.includes("admin@example.org"))).toEqual([]);

    // Who sees it.
    expect((await http.get(base(), { token: requester.token })).json.results.map((r: { id: number }) => r.id)).toEqual([rid]);
    expect((await http.get(base(), { token: maintainer.token })).json.results.map((r: { id: number }) => r.id)).toContain(rid);
    expect((await http.get(base(), { token: stranger.token })).json).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await http.get(`${base()}${rid}/`, { token: requester.token })).json).toEqual(made.json);
    expect((await http.get(`${base()}${rid}/`, { token: maintainer.token })).status).toBe(200);
    expect((await http.get(`${base()}${rid}/`, { token: stranger.token })).text).toBe(FORBIDDEN);
    expect((await http.get(`${base()}?status=pending`, { token: maintainer.token })).json.results.map((r: { id: number }) => r.id)).toContain(rid);
    expect((await http.get(`${base()}?status=denied`, { token: requester.token })).json.count).toBe(0);

    // Approval for a month, as JSON.
    const validUntil = dateIn(30);
    before = smtp.messages.length;
    const approved = await http.post(`${base()}${rid}/approve/`, { token: maintainer.token, json: { valid_until: validUntil } });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ id: rid, status: "approved", valid_until: validUntil, decided_by: maintainer.id, reason: "" });
    expect(approved.json.decided).not.toBeNull();
    const yes = await mailTo("reader@example.org", "Your access to station", before);
    expect(yes.subject).toBe('Your access to station "Private" was approved');
    expect(yes.text).toContain(`was approved, until ${validUntil} (the access ends when that day begins, UTC).`);
    expect(yes.text).toContain(`https://enhydris.example.org/stations/${sid}/`);

    // The private series is readable; the user is a data viewer of the station.
    const read = await http.get(dataPath(), { token: requester.token });
    expect([read.status, read.text]).toEqual([200, RECORDS]);
    expect((await http.get(`/api/stations/${sid}/`, { token: requester.token })).json.data_viewers).toEqual([requester.id]);
    // Deciding twice is refused.
    expect((await http.post(`${base()}${rid}/deny/`, { token: maintainer.token, json: { reason: "Changed my mind" } })).json).toEqual({ non_field_errors: [NOT_PENDING] });

    // A week before the end the upkeep reminds the user, once.
    const soon = dateIn(6);
    await db().write((tx) => tx.accessRequest.update({ where: { id: rid }, data: { validUntil: midnight(soon) } }));
    before = smtp.messages.length;
    expect((await runUpkeep()).access_request).toBe(0);
    const reminder = await mailTo("reader@example.org", "Your access to station", before);
    expect(reminder.subject).toBe(`Your access to station "Private" ends on ${soon}`);
    // It says how to keep the access, as the station page offers it (a new request: an extension).
    expect(reminder.text).toContain("To keep it, request access again on the station's page: its maintainers may approve the new request with a later end date.");
    expect(reminder.text).toContain(`https://enhydris.example.org/stations/${sid}/`);
    expect((await runUpkeep()).access_request).toBe(0);
    expect(smtp.messages.slice(before).filter((m) => m.subject.startsWith("Your access to station"))).toHaveLength(1);
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(200);

    // Once valid_until has begun, the upkeep ends the access and tells the user.
    const yesterday = dateIn(-1);
    await db().write((tx) => tx.accessRequest.update({ where: { id: rid }, data: { validUntil: midnight(yesterday) } }));
    before = smtp.messages.length;
    expect((await runUpkeep()).access_request).toBe(1);
    const ended = await mailTo("reader@example.org", "Your access to station", before);
    expect(ended.subject).toBe('Your access to station "Private" has ended');
    expect(ended.text).toContain(`ended on ${yesterday}`);
    const refused = await http.get(dataPath(), { token: requester.token });
    expect([refused.status, refused.text]).toEqual([403, FORBIDDEN]);
    expect((await http.get(`${base()}${rid}/`, { token: requester.token })).json.status).toBe("expired");
    expect((await http.get(`/api/stations/${sid}/`, { token: requester.token })).json.data_viewers).toEqual([]);
    expect((await runUpkeep()).access_request).toBe(0);

    expect((await activitySummaries()).reverse()).toEqual(expect.arrayContaining([
      'create: Requested access to the data of station "Private"',
      `approve: Approved access of "${requester.username}" to the data of station "Private" until ${validUntil}`,
      `expire: Access of "${requester.username}" to the data of station "Private" ended on ${yesterday}`,
    ]));

    // The user may ask again.
    const again = await http.post(base(), { token: requester.token, json: {} });
    expect([again.status, again.json.status, again.json.message]).toEqual([201, "pending", ""]);
    expect((await http.delete(`${base()}${again.json.id}/`, { token: requester.token })).status).toBe(204);
  });

  it("approval with no end lasts through the upkeep; a user who already was a data viewer stays one after an expiry", async () => {
    const forever = await f.user();
    const rid = (await http.post(base(), { token: forever.token, json: { message: "" } })).json.id;
    const approved = await http.post(`${base()}${rid}/approve/`, { token: creator.token, form: {} });
    expect([approved.status, approved.json.valid_until, approved.json.decided_by]).toEqual([200, null, creator.id]);
    await runUpkeep();
    expect((await http.get(dataPath(), { token: forever.token })).status).toBe(200);
    // Access with no end: nothing to ask for.
    expect((await http.post(base(), { token: forever.token, json: { message: "again" } })).json).toEqual({ non_field_errors: [ALREADY_READER] });

    // Made a data viewer by hand while the request waited: the approval's end leaves them one.
    const viewer = await f.user();
    const vid = (await http.post(base(), { token: viewer.token, json: {} })).json.id;
    const station = (await http.get(`/api/stations/${sid}/`, { token: maintainer.token })).json;
    expect((await http.patch(`/api/stations/${sid}/`, { token: maintainer.token, json: { data_viewers: [...station.data_viewers, viewer.id] } })).status).toBe(200);
    expect((await http.post(`${base()}${vid}/approve/`, { token: superuser.token, json: { valid_until: dateIn(3) } })).status).toBe(200);
    await db().write((tx) => tx.accessRequest.update({ where: { id: vid }, data: { validUntil: midnight(dateIn(-1)) } }));
    expect((await runUpkeep()).access_request).toBe(1);
    expect((await http.get(`${base()}${vid}/`, { token: viewer.token })).json.status).toBe("expired");
    expect((await http.get(dataPath(), { token: viewer.token })).status).toBe(200);
    expect((await http.get(dataPath(), { token: forever.token })).status).toBe(200);
  });

  it("an approval queues its end for the instant valid_until begins: the access ends then, with no upkeep", async () => {
    const requester = await f.user({ email: "timed@example.org" });
    const rid = (await http.post(base(), { token: requester.token, json: {} })).json.id;
    const validUntil = dateIn(2);
    expect((await http.post(`${base()}${rid}/approve/`, { token: maintainer.token, json: { valid_until: validUntil } })).status).toBe(200);
    const key = `access-end:${rid}`;
    const queued = await db().prisma.job.findFirst({ where: { key } });
    expect(queued).toMatchObject({ kind: "access.end", status: "queued" });
    // At that instant, give or take the time from the approval's clock reading to its commit.
    expect(queued!.runAfter.getTime() - midnight(validUntil).getTime()).toBeGreaterThanOrEqual(0);
    expect(queued!.runAfter.getTime() - midnight(validUntil).getTime()).toBeLessThan(5_000);
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(200);

    // Two days pass: valid_until has begun and the job is due. The job runner ends the access by itself.
    const mails = smtp.messages.length;
    await db().write(async (tx) => {
      await tx.accessRequest.update({ where: { id: rid }, data: { validUntil: midnight(dateIn(-1)) } });
      await tx.job.update({ where: { id: queued!.id }, data: { runAfter: new Date() } });
    });
    const done = await until(() => getJob(queued!.id), (j) => j?.status === "succeeded" || j?.status === "failed", 30_000, 50);
    expect(done).toMatchObject({ status: "succeeded", result: { ended: 1 } });
    expect((await mailTo("timed@example.org", 'Your access to station "Private" has ended', mails)).text).toContain(`ended on ${dateIn(-1)}`);
    const refused = await http.get(dataPath(), { token: requester.token });
    expect([refused.status, refused.text]).toEqual([403, FORBIDDEN]);
    expect((await http.get(`${base()}${rid}/`, { token: requester.token })).json.status).toBe("expired");
    expect((await runUpkeep()).access_request).toBe(0);
    // An approval with no end queues none.
    const forever = await f.user();
    const other = (await http.post(base(), { token: forever.token, json: {} })).json.id;
    expect((await http.post(`${base()}${other}/approve/`, { token: maintainer.token, json: { valid_until: null } })).status).toBe(200);
    expect(await db().prisma.job.count({ where: { key: `access-end:${other}` } })).toBe(0);
  });

  it("denial keeps a reason and tells the requester; the data stays closed; a new request may follow", async () => {
    const requester = await f.user({ email: "denied@example.org" });
    const rid = (await http.post(base(), { token: requester.token, json: { message: "Please" } })).json.id;
    expect((await http.post(`${base()}${rid}/deny/`, { token: maintainer.token, json: {} })).json).toEqual({ reason: ["This field is required."] });
    expect((await http.post(`${base()}${rid}/deny/`, { token: maintainer.token, form: { reason: "  " } })).json).toEqual({ reason: ["This field may not be blank."] });
    expect((await http.post(`${base()}${rid}/deny/`, { token: requester.token, json: { reason: "Self" } })).text).toBe(FORBIDDEN);
    const before = smtp.messages.length;
    const denied = await http.post(`${base()}${rid}/deny/`, { token: maintainer.token, form: { reason: "Only for partner agencies." } });
    expect(denied.status).toBe(200);
    expect(denied.json).toMatchObject({ status: "denied", reason: "Only for partner agencies.", valid_until: null, decided_by: maintainer.id });
    const no = await mailTo("denied@example.org", "Your access request", before);
    expect(no.subject).toBe('Your access request for station "Private" was denied');
    expect(no.text).toContain("Only for partner agencies.");
    expect((await http.post(`${base()}${rid}/approve/`, { token: maintainer.token, json: { valid_until: null } })).json).toEqual({ non_field_errors: [NOT_PENDING] });
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(403);
    expect(await activitySummaries()).toContain(`deny: Denied access of "${requester.username}" to the data of station "Private": Only for partner agencies.`);
    expect((await http.post(base(), { token: requester.token, json: { message: "Second try" } })).status).toBe(201);
  });

  it("each e-mail goes in its recipient's language: the account's, else the request's, else English (public.md §3)", async () => {
    const greek = await f.user({ email: "greek-maintainer@example.org" });
    const plain = await f.user({ email: "plain-maintainer@example.org" });
    const requester = await f.user({ email: "greek-reader@example.org" });
    for (const id of [greek.id, requester.id]) await db().write((tx) => tx.user.update({ where: { id }, data: { language: "el" } }));
    const station = await f.station({ name: "Άρτα", displayTimezone: "UTC", maintainers: [greek.id, plain.id] }, creator.id);
    await f.series(await f.group(station, {}), { publiclyAvailable: false });

    let before = smtp.messages.length;
    const rid = (await http.post(base(station), { token: requester.token, json: { message: "Για τη διπλωματική μου." } })).json.id as number;
    const toGreek = await mailTo("greek-maintainer@example.org", "Αίτημα πρόσβασης", before);
    expect(toGreek.subject).toBe("Αίτημα πρόσβασης στον σταθμό «Άρτα»");
    expect(toGreek.text).toContain(`Ο χρήστης «${requester.username}» <greek-reader@example.org> ζητά στο Enhydris test να διαβάσει τα προστατευμένα δεδομένα του σταθμού «Άρτα».`);
    expect(toGreek.text).toContain("Για τη διπλωματική μου.");
    expect(toGreek.text).toContain(`(ή μέσω του API: POST /api/stations/${station}/accessrequests/${rid}/approve/ ή deny/)`);
    // The other maintainer chose no language, and the request named none: English.
    expect((await mailTo("plain-maintainer@example.org", "Access request for station", before)).subject).toBe('Access request for station "Άρτα"');

    const validUntil = dateIn(30);
    before = smtp.messages.length;
    expect((await http.post(`${base(station)}${rid}/approve/`, { token: plain.token, json: { valid_until: validUntil } })).status).toBe(200);
    const yes = await mailTo("greek-reader@example.org", "Εγκρίθηκε", before);
    expect(yes.subject).toBe("Εγκρίθηκε η πρόσβασή σας στον σταθμό «Άρτα»");
    expect(yes.text).toContain(`εγκρίθηκε, έως τις ${validUntil} (η πρόσβαση λήγει με την έναρξη εκείνης της ημέρας, UTC).`);
    expect(yes.text).toContain(`Ο σταθμός: https://enhydris.example.org/stations/${station}/`);

    // The upkeep's reminder and end (no request behind them): the account's language.
    const soon = dateIn(6);
    await db().write((tx) => tx.accessRequest.update({ where: { id: rid }, data: { validUntil: midnight(soon) } }));
    before = smtp.messages.length;
    await runUpkeep();
    const remindedEl = await mailTo("greek-reader@example.org", "Η πρόσβασή σας", before);
    expect(remindedEl.subject).toBe(`Η πρόσβασή σας στον σταθμό «Άρτα» λήγει στις ${soon}`);
    expect(remindedEl.text).toContain("Για να τη διατηρήσετε, ζητήστε ξανά πρόσβαση από τη σελίδα του σταθμού· οι συντηρητές του μπορούν να εγκρίνουν το νέο αίτημα με μεταγενέστερη ημερομηνία λήξης.");
    await db().write((tx) => tx.accessRequest.update({ where: { id: rid }, data: { validUntil: midnight(dateIn(-1)) } }));
    before = smtp.messages.length;
    await runUpkeep();
    expect((await mailTo("greek-reader@example.org", "Η πρόσβασή σας", before)).subject).toBe("Η πρόσβασή σας στον σταθμό «Άρτα» έληξε");

    // A requester with no language of their own, told of a denial made from a Greek browser: Greek.
    const browser = await f.user({ email: "browser-reader@example.org" });
    const second = (await http.post(base(station), { token: browser.token, json: {} })).json.id as number;
    before = smtp.messages.length;
    expect((await http.post(`${base(station)}${second}/deny/`, { token: plain.token, form: { reason: "Μόνο για συνεργάτες." }, headers: { "Accept-Language": "el" } })).status).toBe(200);
    const no = await mailTo("browser-reader@example.org", "Απορρίφθηκε", before);
    expect(no.subject).toBe("Απορρίφθηκε το αίτημα πρόσβασής σας στον σταθμό «Άρτα»");
    expect(no.text).toContain("Η αιτιολογία:\n\n> Μόνο για συνεργάτες.\n");
  });

  it("the requester withdraws; withdrawing an approved request ends its access; others may not withdraw", async () => {
    const requester = await f.user();
    const rid = (await http.post(base(), { token: requester.token, json: {} })).json.id;
    expect((await http.delete(`${base()}${rid}/`)).status).toBe(401);
    expect((await http.delete(`${base()}${rid}/`, { token: stranger.token })).text).toBe(FORBIDDEN);
    expect((await http.delete(`${base()}${rid}/`, { token: maintainer.token })).status).toBe(403);
    expect((await http.delete(`${base()}${rid}/`, { token: requester.token })).status).toBe(204);
    expect((await http.get(`${base()}${rid}/`, { token: requester.token })).status).toBe(404);
    expect((await http.delete(`${base()}${rid}/`, { token: requester.token })).status).toBe(404);

    const second = (await http.post(base(), { token: requester.token, json: {} })).json.id;
    expect((await http.post(`${base()}${second}/approve/`, { token: maintainer.token, json: { valid_until: dateIn(10) } })).status).toBe(200);
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(200);
    expect((await http.delete(`${base()}${second}/`, { token: requester.token })).status).toBe(204);
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(403);
  });

  it("a user who reads the data until an approval's end may ask again (an extension); its approval replaces the earlier one", async () => {
    const requester = await f.user({ email: "extend@example.org" });
    const first = (await http.post(base(), { token: requester.token, json: { message: "First" } })).json.id as number;
    const firstEnd = dateIn(10);
    expect((await http.post(`${base()}${first}/approve/`, { token: maintainer.token, json: { valid_until: firstEnd } })).status).toBe(200);
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(200);

    // The reminder's advice: a new request, while the access lasts; one pending at a time.
    const again = await http.post(base(), { token: requester.token, json: { message: "Please extend" } });
    expect([again.status, again.json.status]).toEqual([201, "pending"]);
    expect((await http.post(base(), { token: requester.token, json: {} })).json).toEqual({ non_field_errors: [ALREADY_PENDING] });
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(200);

    // Approved until a later date: the earlier approval ends now (no e-mail of its own), the access lasts.
    const laterEnd = dateIn(60);
    const extended = await http.post(`${base()}${again.json.id}/approve/`, { token: maintainer.token, json: { valid_until: laterEnd } });
    expect([extended.status, extended.json.status, extended.json.valid_until]).toEqual([200, "approved", laterEnd]);
    expect((await http.get(`${base()}${first}/`, { token: requester.token })).json).toMatchObject({ status: "expired", valid_until: firstEnd });
    const told = await until(async () => smtp.messages.find((m) => m.to.includes("extend@example.org") && m.text.includes(`was approved, until ${laterEnd}`)), (m) => m !== undefined, 15_000, 50);
    expect(told?.subject).toBe('Your access to station "Private" was approved');
    // The earlier end passes: the upkeep ends nothing and tells nothing.
    await db().write((tx) => tx.accessRequest.update({ where: { id: first }, data: { validUntil: midnight(dateIn(-1)) } }));
    const before = smtp.messages.length;
    await runUpkeep();
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(200);
    expect(smtp.messages.slice(before).filter((m) => m.to.includes("extend@example.org") && /has ended|ends on/.test(m.subject))).toEqual([]);
    // The new end ends it.
    await db().write((tx) => tx.accessRequest.update({ where: { id: again.json.id }, data: { validUntil: midnight(dateIn(-1)), remindedAt: new Date() } }));
    expect((await runUpkeep()).access_request).toBe(1);
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(403);

    // An extension with no end: the access is for good, and nothing more may be asked.
    const third = (await http.post(base(), { token: requester.token, json: {} })).json.id as number;
    expect((await http.post(`${base()}${third}/approve/`, { token: maintainer.token, json: { valid_until: dateIn(5) } })).status).toBe(200);
    const fourth = (await http.post(base(), { token: requester.token, json: {} })).json.id as number;
    expect((await http.post(`${base()}${fourth}/approve/`, { token: maintainer.token, json: { valid_until: null } })).status).toBe(200);
    await db().write((tx) => tx.accessRequest.update({ where: { id: third }, data: { validUntil: midnight(dateIn(-1)) } }));
    await runUpkeep();
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(200);
    expect((await http.post(base(), { token: requester.token, json: {} })).json).toEqual({ non_field_errors: [ALREADY_READER] });
    // A data viewer made by hand (no approval behind it) and editors: nothing to ask for either.
    const viewer = await f.user();
    const station = (await http.get(`/api/stations/${sid}/`, { token: maintainer.token })).json;
    expect((await http.patch(`/api/stations/${sid}/`, { token: maintainer.token, json: { data_viewers: [...station.data_viewers, viewer.id] } })).status).toBe(200);
    expect((await http.post(base(), { token: viewer.token, json: {} })).json).toEqual({ non_field_errors: [ALREADY_READER] });
  });

  it("one pending request per user and station, even when sent at once", async () => {
    const requester = await f.user();
    expect((await http.post(base(), { token: requester.token, json: { message: "1" } })).status).toBe(201);
    const second = await http.post(base(), { token: requester.token, form: { message: "2" } });
    expect([second.status, second.json]).toEqual([400, { non_field_errors: [ALREADY_PENDING] }]);

    const eager = await f.user();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => http.post(base(), { token: eager.token, json: { message: `at once ${i}` } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const a of answers.filter((x) => x.status === 400)) expect(a.json).toEqual({ non_field_errors: [ALREADY_PENDING] });
    expect(await db().prisma.accessRequest.count({ where: { userId: eager.id, status: "pending" } })).toBe(1);
    // Another station is another request.
    const other = await f.station({ name: "Other private" });
    await f.series(await f.group(other), { publiclyAvailable: false });
    expect((await http.post(base(other), { token: requester.token, json: {} })).status).toBe(201);
  });
});

describe("permissions and refusals", () => {
  it("anonymous: 401; unknown station or request: 404; non-editors may not decide: 403", async () => {
    const anonymous = await http.get(base());
    expect([anonymous.status, anonymous.text, anonymous.headers.get("www-authenticate")]).toEqual([401, UNAUTHENTICATED, "Token"]);
    expect((await http.post(base(), { json: {} })).status).toBe(401);
    expect((await http.get(base(999999), { token: stranger.token })).status).toBe(404);
    expect((await http.post(base(999999), { token: stranger.token, json: {} })).status).toBe(404);
    const requester = await f.user();
    const rid = (await http.post(base(), { token: requester.token, json: {} })).json.id;
    expect((await http.get(`${base()}999999/`, { token: maintainer.token })).status).toBe(404);
    expect((await http.post(`${base()}999999/approve/`, { token: maintainer.token, json: {} })).status).toBe(404);
    // The request belongs to another station: 404 there.
    expect((await http.get(`${base(openStation)}${rid}/`, { token: requester.token })).status).toBe(404);
    expect((await http.post(`${base()}${rid}/approve/`, { json: {} })).status).toBe(401);
    for (const who of [requester, stranger]) {
      expect((await http.post(`${base()}${rid}/approve/`, { token: who.token, json: {} })).text).toBe(FORBIDDEN);
      expect((await http.post(`${base()}${rid}/deny/`, { token: who.token, json: { reason: "x" } })).text).toBe(FORBIDDEN);
    }
    expect((await http.get(`${base()}${rid}/`, { token: requester.token })).json.status).toBe("pending");
    // A missing slash is answered 308, as everywhere in the API.
    const slashless = await http.get(base().slice(0, -1), { token: requester.token });
    expect([slashless.status, slashless.headers.get("location")]).toEqual([308, base()]);
  });

  it("refuses what makes no sense: editors and readers asking, a station without protected data, bad fields", async () => {
    for (const who of [maintainer, creator, superuser]) {
      expect((await http.post(base(), { token: who.token, json: {} })).json).toEqual({ non_field_errors: [ALREADY_READER] });
    }
    expect((await http.post(base(openStation), { token: stranger.token, json: {} })).json).toEqual({ non_field_errors: [NOTHING_PROTECTED] });
    expect((await http.post(base(), { token: stranger.token, json: { message: "x".repeat(2001) } })).json).toEqual({ message: ["Ensure this field has no more than 2000 characters."] });
    expect((await http.get(`${base()}?status=maybe`, { token: stranger.token })).json).toEqual({ status: ['"maybe" is not a valid choice.'] });
    const requester = await f.user();
    const rid = (await http.post(base(), { token: requester.token, json: {} })).json.id;
    const approve = (body: Record<string, unknown>) => http.post(`${base()}${rid}/approve/`, { token: maintainer.token, json: body });
    expect((await approve({ valid_until: dateIn(0) })).json).toEqual({ valid_until: [NOT_AFTER_TODAY] });
    expect((await approve({ valid_until: dateIn(-3) })).json).toEqual({ valid_until: [NOT_AFTER_TODAY] });
    expect((await approve({ valid_until: "2030-02-30" })).json).toEqual({ valid_until: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] });
    expect((await http.post(`${base()}${rid}/approve/`, { token: maintainer.token, body: "x", headers: { "Content-Type": "text/plain" } })).status).toBe(415);
    expect((await http.get(`${base()}${rid}/`, { token: requester.token })).json.status).toBe("pending");
    expect((await http.get(dataPath(), { token: requester.token })).status).toBe(403);
  });

  it("a station without maintainers: the request goes to its creator; without either, to the superusers", async () => {
    const requester = await f.user();
    const byCreator = await f.station({ name: "Creator only" }, creator.id);
    await f.series(await f.group(byCreator), { publiclyAvailable: false });
    let before = smtp.messages.length;
    expect((await http.post(base(byCreator), { token: requester.token, json: {} })).status).toBe(201);
    expect((await mailTo("creator@example.org", "Access request for station", before)).subject).toBe('Access request for station "Creator only"');

    const orphan = await f.station({ name: "Nobody's" });
    await f.series(await f.group(orphan), { publiclyAvailable: false });
    before = smtp.messages.length;
    expect((await http.post(base(orphan), { token: requester.token, json: { message: "Anyone?" } })).status).toBe(201);
    const toAdmin = await mailTo("admin@example.org", "Access request for station", before);
    expect(toAdmin.subject).toBe('Access request for station "Nobody\'s"');
    expect(toAdmin.text).toContain("Anyone?");
  });
});

describe("the pages (public.md §2)", () => {
  const login = async (who: f.TestUser) => (await siteLogin(server.url, who.username, who.password)).jar.header();

  it("a logged-in user asks on the station page; an editor approves on /manage/; the data reads", async () => {
    const site = siteForms(server.url);
    const requester = await f.user({ email: "site-reader@example.org" });
    const station = `/stations/${sid}/`;
    expect((await site.page(station, "")).text).not.toContain("Request access");
    const cookie = await login(requester);
    const groupPage = `/stations/${sid}/timeseriesgroups/${gid}/`;
    // The series page offers the same form (public.md §2: on the station and series pages).
    const group = await site.page(groupPage, cookie);
    expect(group.text).toContain('aria-label="Request access"');
    expect(group.text).toContain('name="message"');
    expect(group.text).toContain('href="#access"');
    expect(group.text).not.toContain(`href="/stations/${sid}/#access"`);

    const before = smtp.messages.length;
    const asked = await site.submit(await site.form(station, cookie, "Request access"), { message: "Asked on the site." }, cookie);
    expect([asked.status, asked.headers.get("location")]).toEqual([303, `${station}?access=requested#access`]);
    const stored = await db().prisma.accessRequest.findFirstOrThrow({ where: { userId: requester.id, stationId: sid } });
    expect([stored.status, stored.message]).toEqual(["pending", "Asked on the site."]);
    expect((await mailTo("maintainer@example.org", "Access request for station", before)).text).toContain("Asked on the site.");
    const waiting = (await site.page(station, cookie)).text;
    expect(waiting).toContain("is waiting for its maintainers");
    expect(waiting).not.toContain('aria-label="Request access"');
    // The series page, too, says that the request waits, with no form nor link to one.
    const groupWaiting = (await site.page(groupPage, cookie)).text;
    expect(groupWaiting).toContain("is waiting for its maintainers");
    expect(groupWaiting).not.toContain('aria-label="Request access"');
    expect(groupWaiting).not.toContain('href="#access"');

    // The maintainer's /manage/ lists it; a date in the past is refused with the API's message, next to the field.
    const editor = await login(maintainer);
    const manage = (await site.page("/manage/", editor)).text;
    expect(manage).toContain("Access requests waiting for you");
    expect(manage).toContain("Asked on the site.");
    const label = `Approve the request of ${requester.username}`;
    const refused = await site.submit(await site.form("/manage/", editor, label), { valid_until: "2000-01-01" }, editor);
    expect(refused.status).toBe(200);
    expect(fieldMessages(refused.text)).toContain(NOT_AFTER_TODAY);
    const until = dateIn(20);
    const approved = await site.submit(await site.form("/manage/", editor, label), { valid_until: until }, editor);
    expect([approved.status, approved.headers.get("location")]).toEqual([303, "/manage/?done=access-approved#access-requests"]);
    expect((await db().prisma.accessRequest.findUniqueOrThrow({ where: { id: stored.id } })).status).toBe("approved");
    expect((await http.get(dataPath(), { token: requester.token })).text).toBe(RECORDS);
    // Access until a date: both pages tell the date and offer to ask again (an extension), from the series page too.
    for (const path of [station, groupPage]) {
      const text = (await site.page(path, cookie)).text;
      expect(text).toContain(`ends on ${until} (when that day begins, UTC)`);
      expect(text).toContain('aria-label="Request access"');
    }
    const extension = await site.submit(await site.form(groupPage, cookie, "Request access"), { message: "A month more, please." }, cookie);
    expect([extension.status, extension.headers.get("location")]).toEqual([303, `${groupPage}?access=requested#access`]);
    expect((await db().prisma.accessRequest.findFirstOrThrow({ where: { userId: requester.id, stationId: sid, status: "pending" } })).message).toBe("A month more, please.");
    const extending = (await site.page(station, cookie)).text;
    expect(extending).toContain(`ends on ${until}`);
    expect(extending).toContain("is waiting for its maintainers");
    expect(extending).not.toContain('aria-label="Request access"');
    expect((await site.page("/manage/", editor)).text).not.toContain("Asked on the site.");

    // Nobody else's /manage/ shows requests of stations they do not edit.
    const other = await f.user();
    await http.post(base(), { token: other.token, json: { message: "Visible to editors only" } });
    expect((await site.page("/manage/", await login(stranger))).text).not.toContain("Visible to editors only");
    expect((await site.page("/manage/", editor)).text).toContain("Visible to editors only");
  });

  it("an editor denies on /manage/ with a reason (required)", async () => {
    const site = siteForms(server.url);
    const requester = await f.user({ email: "site-denied@example.org" });
    const rid = (await http.post(base(), { token: requester.token, json: { message: "Deny me" } })).json.id;
    const editor = await login(creator);
    const label = `Deny the request of ${requester.username}`;
    const blank = await site.submit(await site.form("/manage/", editor, label), { reason: "" }, editor);
    expect(blank.status).toBe(200);
    expect(fieldMessages(blank.text)).toContain("This field may not be blank.");
    const before = smtp.messages.length;
    const denied = await site.submit(await site.form("/manage/", editor, label), { reason: "Not for students." }, editor);
    expect([denied.status, denied.headers.get("location")]).toEqual([303, "/manage/?done=access-denied#access-requests"]);
    expect((await http.get(`${base()}${rid}/`, { token: requester.token })).json).toMatchObject({ status: "denied", reason: "Not for students.", decided_by: creator.id });
    expect((await mailTo("site-denied@example.org", "Your access request", before)).text).toContain("Not for students.");
  });
});
