/**
 * The private-data rule as one matrix (api.md §15.3, legacy.md §0): every path that returns
 * records or statistics — the current interface under its three path forms, legacy `tsdata`,
 * `{site}/timeseries/data/` and the site's group page, which comes with its first chart — for
 * every kind of user and every way of signing in. Readers get the records; everyone else gets
 * 401 or 403 and not one value. The private series holds a value found nowhere else, so a leak
 * shows up in any body, HTML included.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type TestResponse, NOT_PUBLIC_NOTICE } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

const SECRET = "31337.25";
const PUBLIC = "4242.50";

type Role = "anonymous" | "stranger" | "elsewhere" | "viewer" | "maintainer" | "creator" | "superuser";
type Credential = "token" | "session" | "basic";
const READERS: Role[] = ["viewer", "maintainer", "creator", "superuser"];
const OTHERS: Role[] = ["stranger", "elsewhere"];

let server: TestServer;
let http: ReturnType<typeof api>;
const users = new Map<Role, f.TestUser>();
const cookies = new Map<Role, string>();
let sid: number;
let gid: number;
let privateTs: number;
let publicTs: number;

beforeAll(async () => {
  server = await startServer();
  http = api(server.url);
  for (const role of ["stranger", "elsewhere", "viewer", "maintainer", "creator", "superuser"] as const) {
    users.set(role, await f.user({ superuser: role === "superuser" }));
  }
  const elsewhere = users.get("elsewhere")!;
  await f.station({ name: "Elsewhere", maintainers: [elsewhere.id], dataViewers: [elsewhere.id] }, elsewhere.id);
  sid = await f.station(
    { name: "Matrix", displayTimezone: "UTC", maintainers: [users.get("maintainer")!.id], dataViewers: [users.get("viewer")!.id] },
    users.get("creator")!.id,
  );
  gid = await f.group(sid, { precision: 2 });
  privateTs = await f.series(gid, { type: "Initial", publiclyAvailable: false });
  publicTs = await f.series(gid, { type: "Checked", publiclyAvailable: true });
  await f.addRecords(privateTs, [["2020-01-01T00:00:00Z", 1.5], ["2020-01-01T00:10:00Z", Number(SECRET)]]);
  await f.addRecords(publicTs, [["2019-01-01T00:00:00Z", 2], ["2019-01-01T00:10:00Z", Number(PUBLIC)]]);
  for (const [role, user] of users) {
    const { jar, error } = await siteLogin(server.url, user.username, user.password);
    expect(error).toBeNull();
    cookies.set(role, jar.header());
  }
});
afterAll(() => server?.stop());

/** Every path that answers with records or statistics of series `tid`, with who may sign in how. */
function recordPaths(tid: number): { path: string; credentials: Credential[]; challenge: "Token" | "Basic" }[] {
  const forms = [
    `/api/stations/${sid}/timeseriesgroups/${gid}/timeseries/${tid}/`,
    `/api/stations/${sid}/timeseriesgroup/${gid}/timeseries/${tid}/`,
    `/api/stations/${sid}/timeseries/${tid}/`,
  ];
  const endpoints = ["data/", "data/?fmt=hts", "data/?fmt=hts2&timezone=UTC", "bottom/", "chart/", "chart/?points=1"];
  return [
    ...forms.flatMap((form) => endpoints.map((e) => ({ path: form + e, credentials: ["token", "session"] as Credential[], challenge: "Token" as const }))),
    { path: `/api/tsdata/${tid}/`, credentials: ["token", "session", "basic"], challenge: "Basic" },
    { path: `/api/tsdata/${tid}/?start_date=2019-01-01&timezone=UTC`, credentials: ["token", "session", "basic"], challenge: "Basic" },
    { path: `/timeseries/data/?object_id=${tid}`, credentials: ["token", "session", "basic"], challenge: "Basic" },
    { path: `/timeseries/data/?object_id=${tid}&last=month&date=2020-01-01&time=00:10`, credentials: ["token", "session", "basic"], challenge: "Basic" },
  ];
}

function headers(role: Role, credential: Credential): Record<string, string> {
  const user = users.get(role);
  if (!user) return {};
  if (credential === "token") return { Authorization: `Token ${user.token}` };
  if (credential === "basic") return { Authorization: `Basic ${Buffer.from(`${user.username}:${user.password}`).toString("base64")}` };
  return { Cookie: cookies.get(role)! };
}

const call = (method: "GET" | "HEAD", path: string, role: Role, credential: Credential) => http.request(method, path, { headers: headers(role, credential) });

const summary = (r: TestResponse) => ({ status: r.status, body: r.text });

describe("records and statistics of a private series", () => {
  it.each(["GET", "HEAD"] as const)("%s by anonymous: 401 with the path's challenge, no value", async (method) => {
    for (const { path, challenge } of recordPaths(privateTs)) {
      const r = await call(method, path, "anonymous", "token");
      const body = method === "HEAD" ? "" : '{"detail":"Authentication credentials were not provided."}';
      expect({ path, ...summary(r), challenge: r.headers.get("www-authenticate") }).toEqual({ path, status: 401, body, challenge: challenge === "Basic" ? 'Basic realm="api"' : "Token" });
    }
  });

  it.each(OTHERS.flatMap((role) => (["GET", "HEAD"] as const).map((method) => [method, role] as const)))(
    "%s by a user who is no data reader of the station (%s): 403 with every credential, no value",
    async (method, role) => {
      for (const { path, credentials } of recordPaths(privateTs)) {
        for (const credential of credentials) {
          const r = await call(method, path, role, credential);
          const body = method === "HEAD" ? "" : '{"detail":"You do not have permission to perform this action."}';
          expect({ path, credential, ...summary(r) }).toEqual({ path, credential, status: 403, body });
        }
      }
    },
  );

  it.each(READERS)("GET by the %s: 200 with the records, with every credential, private to caches", async (role) => {
    for (const { path, credentials } of recordPaths(privateTs)) {
      for (const credential of credentials) {
        const r = await call("GET", path, role, credential);
        const leaked = r.text.includes(SECRET) || r.text.includes(SECRET.replace(/0+$/, ""));
        expect({ path, credential, status: r.status, found: leaked, cache: r.headers.get("cache-control") })
          .toEqual({ path, credential, status: 200, found: true, cache: "private, no-cache" });
      }
    }
  });

  it("HEAD by a reader: 200 like GET", async () => {
    for (const { path, credentials } of recordPaths(privateTs)) {
      for (const credential of credentials) expect({ path, credential, status: (await call("HEAD", path, "viewer", credential)).status }).toEqual({ path, credential, status: 200 });
    }
  });
});

describe("records and statistics of a public series", () => {
  it.each(["anonymous", ...OTHERS, ...READERS] as Role[])("GET by %s: 200 with the records on every path", async (role) => {
    for (const { path, credentials } of recordPaths(publicTs)) {
      for (const credential of role === "anonymous" ? (["token"] as Credential[]) : credentials) {
        const r = await call("GET", path, role, credential);
        const found = r.text.includes(PUBLIC) || r.text.includes(PUBLIC.replace(/0+$/, ""));
        expect({ path, credential, status: r.status, found }).toEqual({ path, credential, status: 200, found: true });
      }
    }
  });
});

describe("the site's group page, which comes with its first chart (api.md §16)", () => {
  const page = (series?: number) => `/stations/${sid}/timeseriesgroups/${gid}/${series ? `?series=${series}` : ""}`;
  const open = (path: string, role: Role) => http.get(path, { headers: role === "anonymous" ? {} : { Cookie: cookies.get(role)! } });

  it.each(["anonymous", ...OTHERS] as Role[])("%s: the private series' page says the data are not public and holds no value of it", async (role) => {
    const r = await open(page(privateTs), role);
    expect(r.status).toBe(200);
    expect(r.text).toContain(NOT_PUBLIC_NOTICE);
    expect(r.text).not.toContain(SECRET);
    expect(r.text).not.toContain(SECRET.replace(/0+$/, ""));
    // Without a choice, the page shows the public series instead, with its chart.
    const plain = await open(page(), role);
    expect(plain.text).not.toContain(SECRET.replace(/0+$/, ""));
    expect(plain.text).toContain(PUBLIC);
  });

  it.each(READERS)("%s: the private series' chart comes with the page", async (role) => {
    const r = await open(page(privateTs), role);
    expect(r.status).toBe(200);
    expect(r.text).toContain(SECRET);
    expect(r.text).not.toContain(NOT_PUBLIC_NOTICE);
  });

  it("a token is no site sign-in: the page treats the caller as anonymous", async () => {
    const r = await http.get(page(privateTs), { token: users.get("superuser")!.token });
    expect(r.text).not.toContain(SECRET);
  });
});
