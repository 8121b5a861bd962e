import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "@/tests/support/http";
import * as f from "@/tests/support/fixtures";
import { startServer, type TestServer } from "@/tests/support/server";
import { siteLogin } from "@/tests/support/site-session";

/** Security (issue 8): headers, CORS (api.md §1.8), no secrets in logs. */
let server: TestServer;
let http: ReturnType<typeof api>;
const ORIGIN = "https://maps.example.org";

beforeAll(async () => {
  server = await startServer({ env: { ENHYDRIS_CORS_ALLOWED_ORIGINS: `${ORIGIN},https://other.example.org`, ENHYDRIS_EMAIL_HOST: "127.0.0.1", ENHYDRIS_EMAIL_PORT: "9" } });
  http = api(server.url);
});
afterAll(() => server?.stop());

describe("security headers", () => {
  it("pages have a content security policy that forbids framing, and no MIME sniffing", async () => {
    for (const path of ["/", "/accounts/login/", "/stations/999999/"]) {
      const r = await http.get(path);
      const csp = r.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toMatch(/img-src 'self' data: blob: https:\/\/tile\.openstreetmap\.org/);
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("x-frame-options")).toBe("DENY");
    }
  });

  it("API responses are not sniffed, and the reset pages keep their own referrer policy", async () => {
    expect((await http.get("/api/stations/")).headers.get("x-content-type-options")).toBe("nosniff");
    const complete = await http.get("/api/auth/password/reset/complete/");
    expect(complete.headers.get("referrer-policy")).toBe("no-referrer");
    expect(complete.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("files are served as attachments that cannot run as active content", async () => {
    const sid = await f.station();
    const id = await f.attachment("files", sid, { fileName: "page.html", bytes: "<script>alert(1)</script>", descr: "html" });
    const r = await http.get(`/api/stations/${sid}/files/${id}/content/`);
    expect(r.headers.get("content-type")).toBe("application/octet-stream");
    expect(r.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(r.headers.get("content-security-policy")).toContain("sandbox");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("CORS (api.md §1.8)", () => {
  it("answers a listed origin with its own name and Vary, errors included", async () => {
    for (const path of ["/api/stations/", "/api/nope/", "/api/auth/user/"]) {
      const r = await http.get(path, { headers: { Origin: ORIGIN } });
      expect(r.headers.get("access-control-allow-origin"), path).toBe(ORIGIN);
      expect(r.headers.get("vary")).toContain("Origin");
      expect(r.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  it("answers a preflight with the path's methods and the allowed headers", async () => {
    const r = await http.options("/api/stations/1/", { headers: { Origin: ORIGIN, "Access-Control-Request-Method": "PATCH" } });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(r.headers.get("access-control-allow-methods")).toBe("GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
    expect(r.headers.get("allow")).toBe("GET, HEAD, PUT, PATCH, DELETE, OPTIONS");
    expect(r.headers.get("access-control-allow-headers")).toBe("Authorization, Content-Type, X-CSRFToken");
  });

  it("sends nothing to other origins", async () => {
    const r = await http.get("/api/stations/", { headers: { Origin: "https://evil.example.com" } });
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await http.options("/api/stations/", { headers: { Origin: "https://evil.example.com", "Access-Control-Request-Method": "POST" } });
    expect(pre.headers.get("access-control-allow-methods")).toBeNull();
  });

  it("is off by default", async () => {
    const plain = await startServer();
    try {
      const r = await api(plain.url).get("/api/stations/", { headers: { Origin: ORIGIN } });
      expect(r.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await plain.stop();
    }
  });
});

describe("secrets in the server's output", () => {
  it("never include passwords, token keys or their hashes", async () => {
    const password = "Sup3r-Secret-Passw0rd!";
    const u = await f.user({ password, email: "secret@example.org" });
    const { key } = (await http.post("/api/auth/login/", { form: { username: u.username, password } })).json;
    await http.post("/api/auth/login/", { form: { username: u.username, password: "Wrong-Secret-Guess-42" } });
    await http.post("/api/auth/password/change/", { token: key, form: { old_password: password, new_password1: "Another-Secret-99", new_password2: "Another-Secret-99" } });
    await http.get("/api/stations/", { headers: { Authorization: "Token 0123456789abcdef0123456789abcdef01234567" } });
    await http.post("/api/auth/password/reset/", { form: { email: "secret@example.org" } });
    await siteLogin(server.url, u.username, "Another-Secret-99");
    await new Promise((r) => setTimeout(r, 500));
    const log = server.output();
    for (const secret of [password, "Wrong-Secret-Guess-42", "Another-Secret-99", key, "0123456789abcdef0123456789abcdef01234567", "scrypt$"]) {
      expect(log).not.toContain(secret);
    }
  });
});
