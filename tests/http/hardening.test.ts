import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, expectGreekRefusal, rawRequest } from "@/tests/support/http";
import { ANONYMOUS_BODY_LIMIT } from "@/lib/http/limits";
import { suiteServer } from "@/tests/support/suite";
import * as f from "@/tests/support/fixtures";
import { freePort, ROOT, scratchDatabase, startServer, type TestServer } from "@/tests/support/server";
import { siteLogin, type CookieJar } from "@/tests/support/site-session";
import { startSmtp } from "@/tests/support/smtp";
import { until } from "@/tests/support/wait";

/** The holes of issue 18's attack probe, each closed. */
const EVIL = "evil.example";
const DISALLOWED = { detail: "The Host header names a host this service does not serve." };

describe("Host header poisoning: a request for another host never yields a link to it", () => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let port: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    // No ENHYDRIS_SITE_URL: links come from the request's host, which must be an allowed one.
    server = await startServer({ env: { ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: String(smtp.port), ENHYDRIS_SITE_NAME: "Test" } });
    port = new URL(server.url).port;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  const resetFor = (email: string, headers: Record<string, string>) =>
    rawRequest(server.url, "POST", "/api/auth/password/reset/", { "Content-Type": "application/x-www-form-urlencoded", ...headers }, `email=${encodeURIComponent(email)}`);

  it("answers 400 to a reset request for a foreign host and sends nothing", async () => {
    const email = "victim@example.org";
    await f.user({ email });
    const r = await resetFor(email, { Host: EVIL });
    expect(r.status).toBe(400);
    expect(r.json).toEqual(DISALLOWED);
    // A request for an allowed host does send, with a link to that host.
    const ok = await resetFor(email, { Host: `127.0.0.1:${port}` });
    expect(ok.status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    expect(mail.text).toContain(`http://127.0.0.1:${port}/api/auth/password/reset/confirm/`);
    expect(smtp.messages.map((m) => m.text).join("\n")).not.toContain(EVIL);
  });

  it("ignores X-Forwarded-Host unless proxy headers are trusted", async () => {
    const email = "victim2@example.org";
    await f.user({ email });
    const before = smtp.messages.length;
    expect((await resetFor(email, { Host: `127.0.0.1:${port}`, "X-Forwarded-Host": EVIL })).status).toBe(200);
    const mails = await smtp.waitFor(before + 1);
    expect(mails[before].text).toContain(`http://127.0.0.1:${port}/api/auth/password/reset/confirm/`);
    expect(mails[before].text).not.toContain(EVIL);
  });

  it("refuses foreign hosts on every path: pages, the API, the legacy interface", async () => {
    for (const path of ["/", "/accounts/password/reset/", "/api/stations/", "/api/Station/", "/timeseries/data/"]) {
      const r = await rawRequest(server.url, "GET", path, { Host: EVIL });
      expect(r.status, path).toBe(400);
    }
    expect((await rawRequest(server.url, "GET", "/", { Host: EVIL })).text).toBe(DISALLOWED.detail);
    // Without a Host header at all (HTTP/1.0) too.
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("GET /api/stations/ HTTP/1.0\r\n\r\n"));
      socket.once("data", (d) => {
        resolve(d.toString("latin1").split("\r\n")[0]);
        socket.destroy();
      });
      socket.on("error", reject);
    });
    expect(status).toBe("HTTP/1.1 400 Bad Request");
    // The allowed ones, with any port and in any case.
    expect((await rawRequest(server.url, "GET", "/api/stations/", { Host: "LOCALHOST:8080" })).status).toBe(200);
  });

  it("uses the forwarded host behind a trusted proxy, and checks it", async () => {
    const proxied = await startServer({
      env: { ENHYDRIS_TRUST_PROXY_HEADERS: "true", ENHYDRIS_ALLOWED_HOSTS: "hydro.example.org", ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: String(smtp.port) },
    });
    try {
      const email = "victim3@example.org";
      await f.user({ email });
      const bad = await rawRequest(proxied.url, "POST", "/api/auth/password/reset/",
        { Host: "hydro.example.org", "X-Forwarded-Host": EVIL, "Content-Type": "application/x-www-form-urlencoded" }, `email=${email}`);
      expect(bad.status).toBe(400);
      const before = smtp.messages.length;
      const good = await rawRequest(proxied.url, "POST", "/api/auth/password/reset/",
        { Host: "10.0.0.7:3000", "X-Forwarded-Host": "hydro.example.org", "X-Forwarded-Proto": "https", "Content-Type": "application/x-www-form-urlencoded" }, `email=${email}`);
      expect(good.status).toBe(200);
      const mails = await smtp.waitFor(before + 1);
      expect(mails[before].text).toContain("https://hydro.example.org/api/auth/password/reset/confirm/");
    } finally {
      await proxied.stop();
    }
  });

  it("takes links from ENHYDRIS_SITE_URL when it is set, and answers only to its host", async () => {
    const site = await startServer({
      env: { ENHYDRIS_SITE_URL: "https://enhydris.example.org", ENHYDRIS_ALLOWED_HOSTS: "", ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: String(smtp.port) },
    });
    try {
      expect((await rawRequest(site.url, "GET", "/api/stations/", { Host: "127.0.0.1" })).status).toBe(400);
      const email = "victim4@example.org";
      await f.user({ email });
      const before = smtp.messages.length;
      const r = await rawRequest(site.url, "POST", "/api/auth/password/reset/",
        { Host: "enhydris.example.org", "Content-Type": "application/x-www-form-urlencoded" }, `email=${email}`);
      expect(r.status).toBe(200);
      const mails = await smtp.waitFor(before + 1);
      expect(mails[before].text).toContain("https://enhydris.example.org/api/auth/password/reset/confirm/");
    } finally {
      await site.stop();
    }
  }, 120_000);
});

/** Runs server.mjs with `env` and `args` until it prints `until` or exits; returns its output and exit code. */
/**
 * Starts `node server.mjs` until its output matches `until` (or it exits: `code`), then stops it
 * with SIGTERM: `stopped` says how it exited and how long that took.
 */
async function runServer(args: string[], env: Record<string, string>, until: RegExp): Promise<{ code: number | null; output: string; port: number; stopped: { code: number | null; ms: number } | null }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "enhydris-start-"));
  const database = await scratchDatabase();
  const child = spawn(process.execPath, ["server.mjs", ...args], {
    cwd: ROOT,
    env: {
      ...process.env, NODE_ENV: "production", PORT: String(port), HOSTNAME_BIND: "127.0.0.1", DATABASE_URL: database.url, ENHYDRIS_DEMO_DATA: "0",
      ENHYDRIS_MEDIA_DIR: join(dir, "media"), ENHYDRIS_SECRET_KEY: "k", ENHYDRIS_SITE_URL: "", ENHYDRIS_ALLOWED_HOSTS: "", ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  try {
    const code = await new Promise<number | null>((resolve) => {
      child.on("exit", (c) => resolve(c));
      const timer = setInterval(() => {
        if (until.test(output)) {
          clearInterval(timer);
          resolve(null);
        }
      }, 50);
    });
    let stopped: { code: number | null; ms: number } | null = null;
    if (child.exitCode === null) {
      const signalled = Date.now();
      const exited = new Promise<number | null>((r) => child.once("exit", r));
      child.kill("SIGTERM");
      stopped = { code: await exited, ms: Date.now() - signalled };
    }
    return { code, output, port, stopped };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
    await database.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("start-up without a site URL or allowed hosts", () => {
  it("is refused in production with a message saying what to set", async () => {
    const { code, output } = await runServer([], {}, /listening/);
    expect(code).toBe(1);
    expect(output).toContain("Refusing to start in production without ENHYDRIS_SITE_URL or ENHYDRIS_ALLOWED_HOSTS");
    expect(output).toContain("npm run serve");
    const line = JSON.parse(output.trim().split("\n").at(-1)!);
    expect(line.level).toBe("fatal");
  });

  it("answers localhost only in the local demo (npm run serve)", async () => {
    const { code, output } = await runServer(["--demo"], {}, /listening/);
    expect(code, output).toBeNull();
    expect(output).toContain("answering to localhost, 127.0.0.1, [::1] only");
  });

  it("stops within seconds, exit code 0, when told to stop while its workers start", async () => {
    const { code, output, stopped } = await runServer(["--demo"], { ENHYDRIS_WORKERS: "2" }, /listening/);
    expect(code, output).toBeNull();
    expect(output).toContain("(2 worker processes, ENHYDRIS_WORKERS)");
    expect(stopped?.code, output).toBe(0);
    // The workers' shutdown timeout is 55 s: a worker that missed the request to stop would wait for it.
    expect(stopped!.ms, output).toBeLessThan(20_000);
    expect(output).not.toContain("still running after the shutdown timeout");
  });

  it("names an invalid ENHYDRIS_ALLOWED_HOSTS", async () => {
    const { code, output } = await runServer([], { ENHYDRIS_ALLOWED_HOSTS: "https://a.example/" }, /listening/);
    expect(code).toBe(1);
    expect(output).toContain('Invalid setting ENHYDRIS_ALLOWED_HOSTS=\\"https://a.example/\\"');
  });
});

describe("Origin and Referer checks of cookie-authenticated unsafe requests", () => {
  let server: TestServer;
  let http: ReturnType<typeof api>;
  let jar: CookieJar;
  let own: string;
  const TOKEN = "T".repeat(32);

  beforeAll(async () => {
    server = await startServer({ env: { ENHYDRIS_TRUST_PROXY_HEADERS: "true" } });
    http = api(server.url);
    own = server.url;
    const u = await f.user({ superuser: true });
    jar = (await siteLogin(server.url, u.username, u.password)).jar;
    jar.set("csrftoken", TOKEN);
  });
  afterAll(() => server?.stop());

  const session = (extra: Record<string, string> = {}) => ({ Cookie: jar.header(), "X-CSRFToken": TOKEN, ...extra });
  const failed = (reason: string) => ({ detail: `CSRF Failed: ${reason}` });

  it("refuses a foreign Origin on the API even with a matching token", async () => {
    const r = await http.patch("/api/auth/user/", { headers: session({ Origin: "https://evil.example" }), form: { first_name: "X" } });
    expect(r.status).toBe(403);
    expect(r.json).toEqual(failed("Origin checking failed - https://evil.example does not match any trusted origins."));
    const nul = await http.patch("/api/auth/user/", { headers: session({ Origin: "null" }), form: { first_name: "X" } });
    expect(nul.json).toEqual(failed("Origin checking failed - null does not match any trusted origins."));
  });

  it("lets the site's own origin through, and requests without Origin over plain HTTP", async () => {
    expect((await http.patch("/api/auth/user/", { headers: session({ Origin: own }), form: { first_name: "A" } })).status).toBe(200);
    expect((await http.patch("/api/auth/user/", { headers: session(), form: { first_name: "B" } })).status).toBe(200);
  });

  it("checks the Referer on HTTPS when there is no Origin, as Django does", async () => {
    const https = (extra: Record<string, string>) => session({ "X-Forwarded-Proto": "https", ...extra });
    const host = new URL(own).host;
    expect((await http.patch("/api/auth/user/", { headers: https({}), form: { first_name: "C" } })).json).toEqual(failed("Referer checking failed - no Referer."));
    expect((await http.patch("/api/auth/user/", { headers: https({ Referer: "not a url" }), form: { first_name: "C" } })).json)
      .toEqual(failed("Referer checking failed - Referer is malformed."));
    expect((await http.patch("/api/auth/user/", { headers: https({ Referer: `http://${host}/accounts/profile/` }), form: { first_name: "C" } })).json)
      .toEqual(failed("Referer checking failed - Referer is insecure while host is secure."));
    expect((await http.patch("/api/auth/user/", { headers: https({ Referer: "https://evil.example/page" }), form: { first_name: "C" } })).json)
      .toEqual(failed("Referer checking failed - https://evil.example/page does not match any trusted origins."));
    expect((await http.patch("/api/auth/user/", { headers: https({ Referer: `https://${host}/accounts/profile/` }), form: { first_name: "C" } })).status).toBe(200);
  });

  it("checks the legacy interface's session writes too", async () => {
    const r = await http.post("/api/Station/", { headers: session({ Origin: "https://evil.example" }), form: { name: "X" } });
    expect(r.status).toBe(403);
    expect(r.json).toEqual(failed("Origin checking failed - https://evil.example does not match any trusted origins."));
  });

  it("leaves token-authenticated requests alone (no cookie, no CSRF)", async () => {
    const u = await f.user();
    const r = await http.patch("/api/auth/user/", { token: u.token, headers: { Origin: "https://evil.example" }, form: { first_name: "T" } });
    expect(r.status).toBe(200);
  });

  it("answers 403, never 500, to a cross-origin post of a site form", async () => {
    for (const cookie of [jar.header(), ""]) {
      for (const path of ["/accounts/profile/", "/accounts/password/reset/"]) {
        const r = await rawRequest(server.url, "POST", path,
          { Host: new URL(own).host, Origin: "https://evil.example", "Next-Action": "0".repeat(42), "Content-Type": "text/plain;charset=UTF-8", Cookie: cookie }, "[]");
        expect(r.status, path).toBe(403);
        // An HTML page (management.md §1), naming the reason.
        expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(r.text).toContain("CSRF verification failed: Origin checking failed - https://evil.example does not match any trusted origins.");
      }
    }
    // In the request's language (the language cookie, else Accept-Language); the check's own words stay.
    const greek = await rawRequest(server.url, "POST", "/accounts/profile/",
      { Host: new URL(own).host, Origin: "https://evil.example", "Next-Action": "0".repeat(42), "Content-Type": "text/plain;charset=UTF-8", Cookie: "enhydris_language=el" }, "[]");
    expectGreekRefusal({ status: greek.status, body: greek.text }, {
      status: 403, title: "Απαγορεύεται", english: "Back to the site",
      says: ["Αυτή η φόρμα στάλθηκε από άλλον ιστότοπο, γι’ αυτό απορρίφθηκε.", "CSRF verification failed: Origin checking failed - https://evil.example does not match any trusted origins."],
    });
    // next-auth's sign-in (login CSRF) and sign-out.
    for (const path of ["/accounts/auth/callback/credentials", "/accounts/auth/signout"]) {
      const r = await rawRequest(server.url, "POST", path, { Host: new URL(own).host, Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" }, "a=b");
      expect(r.status, path).toBe(403);
    }
  });
});

describe("security headers", () => {
  const suite = suiteServer({ env: { ENHYDRIS_TRUST_PROXY_HEADERS: "true" } });

  it("pages allow scripts by nonce only, and Next's scripts carry the nonce", async () => {
    const nonces = new Set<string>();
    for (const path of ["/", "/accounts/login/", "/accounts/password/reset/", "/stations/999999/"]) {
      const r = await suite.http.get(path);
      const csp = r.headers.get("content-security-policy") ?? "";
      const script = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src"))!;
      expect(script, path).toMatch(/^script-src 'self' 'nonce-[A-Za-z0-9+/]+={0,2}'$/);
      const nonce = /'nonce-([^']+)'/.exec(script)![1];
      nonces.add(nonce);
      const tags = r.text.match(/<script\b[^>]*>/g) ?? [];
      // The 404 page is drawn whole on the server (lib/server/error-shells.ts): it needs no script.
      if (r.status !== 404) expect(tags.length, path).toBeGreaterThan(0);
      for (const tag of tags) expect(tag, path).toContain(`nonce="${nonce}"`);
    }
    expect(nonces.size).toBe(4);
  });

  it("every HTML page has the same headers: the site's, the legacy HTML, the API reference and the reset pages", async () => {
    const pages = [
      await suite.http.get("/accounts/login/"),
      await suite.http.get("/api/Station/", { headers: { Accept: "text/html" } }),
      await suite.http.get("/api/docs/"),
      await suite.http.get("/api/auth/password/reset/complete/"),
    ];
    for (const r of pages) {
      expect(r.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = r.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toMatch(/script-src 'self'( 'nonce-[^']+')?;/);
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toMatch(/^(strict-origin-when-cross-origin|no-referrer)$/);
    }
    expect(pages[2].headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(pages[3].headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("sends HSTS on HTTPS only", async () => {
    expect((await suite.http.get("/api/stations/")).headers.get("strict-transport-security")).toBeNull();
    for (const path of ["/api/stations/", "/accounts/login/"]) {
      const r = await suite.http.get(path, { headers: { "X-Forwarded-Proto": "https" } });
      expect(r.headers.get("strict-transport-security"), path).toBe("max-age=31536000");
    }
  });

  // The same server: the body limit is an edge check too.
  it("holds a request with no authenticated user to a small body (ANONYMOUS_BODY_LIMIT), a user's to ENHYDRIS_MAX_UPLOAD_SIZE", async () => {
    const TOO_LARGE = `{"detail":"Request body too large; the limit is ${ANONYMOUS_BODY_LIMIT} bytes."}`;
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const padding = (n: number) => `username=nobody&password=x&pad=${"x".repeat(n)}`;
    // Declared: refused before it is read.
    const declared = await rawRequest(suite.server.url, "POST", "/api/auth/login/", form, padding(ANONYMOUS_BODY_LIMIT));
    expect([declared.status, declared.text]).toEqual([413, TOO_LARGE]);
    // Chunked, with no length: refused once it passes the limit.
    const { request } = await import("node:http");
    const url = new URL(`${suite.server.url}/api/auth/password/reset/`);
    const chunked = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { ...form, "Transfer-Encoding": "chunked" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      });
      req.on("error", reject);
      req.write("email=a%40example.org&pad=");
      for (let i = 0; i < 160; i++) req.write("x".repeat(8192));
      req.end();
    });
    expect([chunked.status, chunked.text]).toEqual([413, TOO_LARGE]);
    // Below the limit: the route answers as usual.
    const small = await rawRequest(suite.server.url, "POST", "/api/auth/login/", form, padding(1000));
    expect(small.status).toBe(400);
    // A user (a token) may send more: the station's remarks, longer than the anonymous limit.
    const editor = await f.user({ superuser: true });
    const sid = await f.station();
    const remarks = "r".repeat(ANONYMOUS_BODY_LIMIT + 1000);
    const saved = await suite.http.patch(`/api/stations/${sid}/`, { token: editor.token, json: { remarks } });
    expect(saved.status, saved.text.slice(0, 200)).toBe(200);
    expect(saved.json.remarks).toHaveLength(remarks.length);
    // An unknown token is no user.
    const forged = await suite.http.patch(`/api/stations/${sid}/`, { token: "0".repeat(40), json: { remarks } });
    expect(forged.status).toBe(401);
  });
});

describe("the development mail transport", () => {
  it("writes the message to the outbox and never the reset link to the log", async () => {
    const outbox = mkdtempSync(join(tmpdir(), "enhydris-outbox-"));
    const server = await startServer({ env: { ENHYDRIS_EMAIL_HOST: "", ENHYDRIS_OUTBOX_DIR: outbox } });
    try {
      await f.user({ email: "outbox@example.org" });
      expect((await api(server.url).post("/api/auth/password/reset/", { form: { email: "outbox@example.org" } })).status).toBe(200);
      let files: string[] = [];
      for (let i = 0; i < 50 && files.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        files = readdirSync(outbox);
      }
      const text = readFileSync(join(outbox, files[0]), "utf8");
      const [, uid, token] = /\/confirm\/([^/]+)\/([^/]+)\//.exec(text)!;
      await api(server.url).get(`/api/auth/password/reset/confirm/${uid}/${token}/`, { headers: { "X-Request-Id": "outbox-link" } });
      // The request's log line is written once the answer has gone: wait for it, not a fixed time.
      await until(async () => server.output(), (out) => out.includes('"req_id":"outbox-link"'));
      expect(server.output()).toContain("development outbox");
      expect(server.output()).toContain(`/confirm/${uid}/[redacted]/`);
      expect(server.output()).not.toContain(token);
    } finally {
      await server.stop();
      rmSync(outbox, { recursive: true, force: true });
    }
  });
});

describe("a request body that stops arriving (ENHYDRIS_BODY_IDLE_TIMEOUT)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { ENHYDRIS_BODY_IDLE_TIMEOUT: "1" } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Sends the head and the first `sent` bytes of a body of `length`, then nothing; what comes back before the server closes. */
  function stalledPost(path: string, headers: string, length: number, sent: string): Promise<{ text: string; ms: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      let text = "";
      const socket = connect(Number(new URL(server.url).port), "127.0.0.1", () => {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Content-Length: ${length}\r\n\r\n${sent}`);
      });
      const giveUp = setTimeout(() => socket.destroy(new Error(`no answer in 20 s; got ${JSON.stringify(text)}`)), 20_000);
      socket.on("data", (d) => (text += d));
      socket.on("close", () => {
        clearTimeout(giveUp);
        resolve({ text, ms: Date.now() - started });
      });
      socket.on("error", reject);
    });
  }

  it("answers 408 in the API's JSON and closes the connection", async () => {
    const r = await stalledPost("/api/auth/login/", "Content-Type: application/x-www-form-urlencoded\r\n", 200, "username=a");
    expect(r.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(r.text).toContain("Content-Type: application/json\r\n");
    expect(r.text).toContain("Connection: close\r\n");
    expect(r.text.split("\r\n\r\n")[1]).toBe(JSON.stringify({ detail: "Request timeout: no data of the request's body arrived for 1 seconds." }));
    expect(r.ms).toBeGreaterThanOrEqual(1_000);
    // The worker writes its log line through the primary's pipe, possibly after the answer arrived.
    expect(await until(async () => server.output(), (out) => out.includes("a request's body stopped arriving"))).toContain("a request's body stopped arriving");
    // The handler that was reading the body learns that it ended: not a database failure.
    expect(await until(async () => server.output(), (out) => out.includes("POST /api/auth/login/: the request's body did not arrive whole"))).not.toContain("database unavailable");
  });

  it("logs a client that goes away in the middle of its body as that, not as a database failure", async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), "127.0.0.1", () => {
        socket.write("POST /api/auth/login/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\nusername=b");
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on("close", () => resolve());
      socket.on("error", reject);
    });
    const lines = () => server.output().split("\n").filter((l) => l.includes("the request's body did not arrive whole"));
    await until(async () => lines().length, (n) => n >= 2);
    expect(server.output()).not.toContain("database unavailable");
    expect(server.output()).not.toContain("unexpected error");
  });

  it("answers 408 as text on the site (a form read by Next)", async () => {
    const r = await stalledPost("/accounts/auth/callback/credentials", "Content-Type: application/x-www-form-urlencoded\r\n", 200, "username=a");
    expect(r.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(r.text).toContain("Content-Type: text/plain; charset=utf-8\r\n");
    expect(r.text.split("\r\n\r\n")[1]).toBe("Request timeout: no data of the request's body arrived for 1 seconds.");
    // In the request's language on the site; the API's stays English.
    const greek = await stalledPost("/accounts/auth/callback/credentials", "Content-Type: application/x-www-form-urlencoded\r\nAccept-Language: el\r\n", 200, "username=a");
    expect(greek.text.split("\r\n\r\n")[1]).toBe("Λήξη χρόνου αιτήματος: δεν έφτασαν δεδομένα του σώματος του αιτήματος για 1 δευτερόλεπτο.");
    const api = await stalledPost("/api/auth/login/", "Content-Type: application/x-www-form-urlencoded\r\nAccept-Language: el\r\n", 200, "username=a");
    expect(api.text.split("\r\n\r\n")[1]).toBe(JSON.stringify({ detail: "Request timeout: no data of the request's body arrived for 1 seconds." }));
    // Next's report of the closed connection is no error of the server's.
    await until(async () => server.output(), (out) => out.includes('"path":"/accounts/auth/callback/credentials","route"'));
    await new Promise((done) => setTimeout(done, 300));
    const errors = server.output().split("\n").filter((l) => l.includes('"level":"error"') && l.includes("aborted"));
    expect(errors).toEqual([]);
  });

  it("lets a slow but steady body through, however long it takes in all", async () => {
    const body = "username=nobody&password=wrong-password-1";
    const answer = new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = connect(Number(new URL(server.url).port), "127.0.0.1", async () => {
        socket.write(`POST /api/auth/login/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`);
        // 2.5 s in all, a part every 250 ms.
        for (let i = 0; i < body.length; i += 4) {
          await new Promise((r) => setTimeout(r, 250));
          socket.write(body.slice(i, i + 4));
        }
      });
      socket.on("data", (d) => (text += d));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toContain("Unable to log in with provided credentials.");
  });

  it("refuses to start with a setting that is not a number of seconds", async () => {
    const { code, output } = await runServer([], { ENHYDRIS_ALLOWED_HOSTS: "localhost", ENHYDRIS_BODY_IDLE_TIMEOUT: "1m" }, /listening/);
    expect(code).toBe(1);
    expect(output).toContain('Invalid setting ENHYDRIS_BODY_IDLE_TIMEOUT=\\"1m\\": expected a number of seconds (0 turns the check off).');
  });

  it("refuses ENHYDRIS_SOURCE_MAPS that is not a boolean, and starts with them on (the default; the tests run with them off)", async () => {
    const refused = await runServer([], { ENHYDRIS_ALLOWED_HOSTS: "localhost", ENHYDRIS_SOURCE_MAPS: "maybe" }, /listening/);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('Invalid setting ENHYDRIS_SOURCE_MAPS=\\"maybe\\": expected a boolean (true/false, 1/0, on/off, yes/no, y/n).');
    const started = await runServer([], { ENHYDRIS_ALLOWED_HOSTS: "localhost", ENHYDRIS_SOURCE_MAPS: "" }, /listening/);
    expect(started.code).toBeNull();
    expect(started.stopped?.code).toBe(0);
  });
});
