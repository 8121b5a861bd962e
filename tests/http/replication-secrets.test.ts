import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seal, unseal } from "@/lib/auth/secret-box";
import { db } from "@/lib/db";
import { SOURCE_SECRET_LABELS } from "@/lib/replication/sources";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { siteLogin } from "@/tests/support/site-session";
import { DIALECT, startServer, TEST_SECRET_KEY, type TestServer } from "@/tests/support/server";

/**
 * Replication sources' passwords and tokens are encrypted at rest (issue 36, item 5;
 * lib/auth/secret-box.ts with a key derived from ENHYDRIS_SECRET_KEY), on the database under
 * test: the stored column is not the password; the API, the pages and the activity log never
 * show it, nor its ciphertext; a run still logs in with it; plaintext stored before keeps
 * working and is encrypted when a server starts; with another key a run fails saying so, and
 * nothing leaks or crashes.
 */
let A: TestServer;
let B: TestServer;
let aAdmin: f.TestUser;
let bAdmin: f.TestUser;
const b = () => api(B.url);

beforeAll(async () => {
  A = await startServer();
  aAdmin = await f.user({ superuser: true, password: "source-admin-pass-1" });
  const station = await f.station({ name: "Private gauge" });
  const series = await f.series(await f.group(station), { type: "Initial", timeStep: "10min", publiclyAvailable: false });
  await f.addRecords(series, [["2024-01-01T00:00:00Z", 1.5], ["2024-01-01T00:10:00Z", 1.75]]);
  // B replicates from A, on 127.0.0.1: outbound requests reach it only when allowed.
  B = await startServer({ env: { ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
  bAdmin = await f.user({ superuser: true });
}, 180_000);
afterAll(async () => {
  await B?.stop();
  await A?.stop();
});

const storedRow = (id: number) => db().prisma.replicationSource.findUniqueOrThrow({ where: { id } });

async function run(server: TestServer, token: string, id: number) {
  const r = await api(server.url).post(`/api/replication/sources/${id}/run/`, { token, json: { wait: true } });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

/** Everything a superuser can read about the source: the API's source and runs, the pages, the activity log. */
async function everythingShown(server: TestServer, token: string, id: number): Promise<string> {
  const h = api(server.url);
  const cookie = (await siteLogin(server.url, bAdmin.username, bAdmin.password)).jar.header();
  const pages = await Promise.all(["/manage/replication/", `/manage/replication/${id}/`].map(async (path) => {
    const r = await fetch(server.url + path, { headers: { Cookie: cookie } });
    expect(r.status, path).toBe(200);
    return r.text();
  }));
  const activity = await db().prisma.activity.findMany({ where: { objectType: "replication_source", objectId: id } });
  return [
    (await h.get("/api/replication/sources/", { token })).text, (await h.get(`/api/replication/sources/${id}/`, { token })).text,
    (await h.get(`/api/replication/sources/${id}/runs/`, { token })).text, ...pages, JSON.stringify(activity),
  ].join("\n");
}

describe(`replication credentials at rest (${DIALECT})`, () => {
  it("a password is stored encrypted, shown nowhere, and the run logs in with it", async () => {
    const created = await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "With password", url: A.url, username: aAdmin.username, password: aAdmin.password } });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as number;
    const row = await storedRow(id);
    expect(row.password).toMatch(/^v1:[\w-]+$/);
    expect(row.password).not.toContain(aAdmin.password);
    expect(unseal(SOURCE_SECRET_LABELS.password, row.password, TEST_SECRET_KEY)).toBe(aAdmin.password);
    // The source's private series is readable with these credentials only: its records are copied.
    expect(await run(B, bAdmin.token, id)).toMatchObject({ status: "succeeded", records: 2, warnings: [], error: null });
    // The same password again is no change of the credentials in the activity log.
    await b().patch(`/api/replication/sources/${id}/`, { token: bAdmin.token, json: { password: aAdmin.password, name: "Renamed" } });
    expect((await db().prisma.activity.findFirstOrThrow({ where: { objectType: "replication_source", objectId: id }, orderBy: { id: "desc" } })).summary)
      .toBe(`Changed replication source "Renamed" (${A.url}): name`);
    const shown = await everythingShown(B, bAdmin.token, id);
    for (const secret of [aAdmin.password, row.password, (await storedRow(id)).password]) expect(shown).not.toContain(secret);
    expect(B.output()).not.toContain(aAdmin.password);
    expect(B.output()).not.toContain(row.password);
  });

  it("a token is stored encrypted too, and the run uses it", async () => {
    const created = await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "With token", url: A.url, token: aAdmin.token } });
    expect(created.status, created.text).toBe(201);
    const row = await storedRow(created.json.id);
    expect(row.token).toMatch(/^v1:[\w-]+$/);
    expect(row.token).not.toContain(aAdmin.token);
    expect(unseal(SOURCE_SECRET_LABELS.token, row.token, TEST_SECRET_KEY)).toBe(aAdmin.token);
    expect(await run(B, bAdmin.token, created.json.id)).toMatchObject({ status: "succeeded", records: 2, warnings: [] });
    expect(JSON.stringify((await b().get(`/api/replication/sources/${created.json.id}/`, { token: bAdmin.token })).json)).not.toContain(aAdmin.token);
  });

  it("a password stored in plaintext before still works, and is encrypted when a server starts", async () => {
    const created = await b().post("/api/replication/sources/", { token: bAdmin.token, json: { name: "Old row", url: A.url } });
    const id = created.json.id as number;
    // As the previous version stored it.
    await db().write((tx) => tx.replicationSource.update({ where: { id }, data: { username: aAdmin.username, password: aAdmin.password } }));
    expect(await run(B, bAdmin.token, id)).toMatchObject({ status: "succeeded", records: 2, warnings: [] });
    const lastModified = (await storedRow(id)).lastModified;
    const restarted = await startServer({ databaseUrl: B.databaseUrl, env: { ENHYDRIS_JOB_RUNNER: "false" } });
    try {
      const row = await storedRow(id);
      expect(row.password).toMatch(/^v1:[\w-]+$/);
      expect(unseal(SOURCE_SECRET_LABELS.password, row.password, TEST_SECRET_KEY)).toBe(aAdmin.password);
      // Not a change of the source: a form opened before is not refused as stale.
      expect(row.lastModified).toEqual(lastModified);
      expect(restarted.output()).toContain("Encrypted the stored credentials of 1 replication source.");
      expect(restarted.output()).not.toContain(aAdmin.password);
    } finally {
      await restarted.stop();
    }
    expect(await run(B, bAdmin.token, id)).toMatchObject({ status: "succeeded", warnings: [] });
  });

  it("with another ENHYDRIS_SECRET_KEY the run fails saying so; nothing leaks, the server goes on", async () => {
    // A database whose source was saved under the suite's key, served with another key.
    const other = await startServer({ env: { ENHYDRIS_SECRET_KEY: "a-different-secret-key", ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" } });
    try {
      const admin = await f.user({ superuser: true });
      const sealed = seal(SOURCE_SECRET_LABELS.password, aAdmin.password, TEST_SECRET_KEY);
      const { id } = await db().write((tx) => tx.replicationSource.create({
        data: { name: "Moved here", url: A.url, username: aAdmin.username, password: sealed, lastModified: new Date() },
      }));
      const failed = await run(other, admin.token, id);
      expect(failed).toMatchObject({
        status: "failed", records: null,
        error: "The stored replication source password cannot be decrypted with this ENHYDRIS_SECRET_KEY (it was encrypted with another key, or altered).",
      });
      expect((await fetch(`${other.url}/api/health/`)).status).toBe(200);
      const h = api(other.url);
      const answers = [(await h.get("/api/replication/sources/", { token: admin.token })).text, (await h.get(`/api/replication/sources/${id}/runs/`, { token: admin.token })).text];
      for (const text of [...answers, other.output()]) {
        expect(text).not.toContain(aAdmin.password);
        expect(text).not.toContain(sealed);
        expect(text).not.toContain(sealed.slice(3, 24));
      }
      expect(other.output()).toContain("cannot be decrypted with this ENHYDRIS_SECRET_KEY");
      // The start-up pass left the value it cannot open as it was; typing the password again mends it.
      expect((await storedRow(id)).password).toBe(sealed);
      expect((await h.patch(`/api/replication/sources/${id}/`, { token: admin.token, json: { username: aAdmin.username, password: aAdmin.password } })).status).toBe(200);
      expect(await run(other, admin.token, id)).toMatchObject({ status: "succeeded", records: 2, warnings: [] });
    } finally {
      await other.stop();
    }
  });
});
