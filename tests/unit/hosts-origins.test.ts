import { describe, expect, it } from "vitest";
import { hostName, isAllowedHost, LOCAL_HOSTS, parseAllowedHosts, serverHosts, HOSTS_REQUIRED } from "@/lib/config/hosts.mjs";
import { originFailure } from "@/lib/http/origins.mjs";
import { contentSecurityPolicy } from "@/lib/http/security-headers.mjs";
import { redact } from "@/lib/observability/log";

describe("allowed hosts", () => {
  it("parses host names, with a leading dot for subdomains, and refuses anything else", () => {
    expect(parseAllowedHosts(" Hydro.Example.org , .example.net,127.0.0.1,[::1] ")).toEqual(["hydro.example.org", ".example.net", "127.0.0.1", "[::1]"]);
    expect(parseAllowedHosts("")).toEqual([]);
    expect(parseAllowedHosts(undefined)).toEqual([]);
    for (const bad of ["https://a.example", "a.example:8000", "a.example/", "*", "a b", "-a.example"]) expect(parseAllowedHosts(bad), bad).toBeNull();
  });

  it("matches a Host header by name, whatever its port and case", () => {
    const allowed = ["hydro.example.org", ".example.net", "[::1]"];
    expect(hostName("Hydro.Example.org:8443")).toBe("hydro.example.org");
    expect(hostName("[::1]:3000")).toBe("[::1]");
    for (const ok of ["hydro.example.org", "HYDRO.example.org:443", "hydro.example.org.", "example.net", "a.b.example.net:80", "[::1]:3000"]) {
      expect(isAllowedHost(ok, allowed), ok).toBe(true);
    }
    for (const bad of ["evil.example", "hydro.example.org.evil.example", "xexample.net", "", null, undefined, "hydro.example.org:x", "a@hydro.example.org", "[::2]"]) {
      expect(isAllowedHost(bad, allowed), String(bad)).toBe(false);
    }
  });

  it("are the setting plus the site URL's host; localhost only where allowed to default", () => {
    expect(serverHosts({ ENHYDRIS_ALLOWED_HOSTS: "a.example", ENHYDRIS_SITE_URL: "https://b.example:8443/x" }, false)).toEqual({ hosts: ["a.example", "b.example"], defaulted: false });
    expect(serverHosts({ ENHYDRIS_SITE_URL: "https://b.example" }, false)).toEqual({ hosts: ["b.example"], defaulted: false });
    expect(serverHosts({}, true)).toEqual({ hosts: [...LOCAL_HOSTS], defaulted: true });
    expect(serverHosts({}, false)).toEqual({ error: HOSTS_REQUIRED });
    expect(serverHosts({ ENHYDRIS_ALLOWED_HOSTS: "http://x" }, true)).toHaveProperty("error");
  });
});

describe("the Origin/Referer check", () => {
  const own = "https://hydro.example.org";
  const check = (origin: string | null, referer: string | null, secure = true, trusted: string[] = []) =>
    originFailure({ origin, referer, own: secure ? own : "http://hydro.example.org", secure }, trusted);

  it("accepts the request's own origin and trusted ones", () => {
    expect(check(own, null)).toBeNull();
    expect(check("https://site.example", null, true, ["https://site.example"])).toBeNull();
    expect(check(null, `${own}/accounts/profile/`)).toBeNull();
    expect(check(null, null, false)).toBeNull();
  });

  it("refuses the others with Django's reasons", () => {
    expect(check("https://evil.example", null)).toBe("Origin checking failed - https://evil.example does not match any trusted origins.");
    expect(check("http://hydro.example.org", null)).toBe("Origin checking failed - http://hydro.example.org does not match any trusted origins.");
    expect(check("null", `${own}/`)).toBe("Origin checking failed - null does not match any trusted origins.");
    expect(check(null, null)).toBe("Referer checking failed - no Referer.");
    expect(check(null, "::")).toBe("Referer checking failed - Referer is malformed.");
    expect(check(null, "ftp://hydro.example.org/")).toBe("Referer checking failed - Referer is malformed.");
    expect(check(null, "http://hydro.example.org/")).toBe("Referer checking failed - Referer is insecure while host is secure.");
    expect(check(null, "https://evil.example/x")).toBe("Referer checking failed - https://evil.example/x does not match any trusted origins.");
    expect(check("https://evil.example", null, false)).toBe("Origin checking failed - https://evil.example does not match any trusted origins.");
  });
});

describe("content security policy", () => {
  it("allows scripts from this site and by nonce, never inline", () => {
    const csp = contentSecurityPolicy({ nonce: "abc=", tiles: "https://tile.example" });
    expect(csp).toContain("script-src 'self' 'nonce-abc='; ");
    expect(csp).toContain("img-src 'self' data: blob: https://tile.example;");
    expect(contentSecurityPolicy()).toContain("script-src 'self'; ");
    expect(contentSecurityPolicy({ nonce: "n", dev: true })).toContain("script-src 'self' 'nonce-n' 'unsafe-eval';");
  });
});

describe("log redaction of reset links", () => {
  it("masks the token of a reset link but not the form page", () => {
    expect(redact("GET /api/auth/password/reset/confirm/MTI/n2x1k-abcdefABCDEF0123456789_-abcdefgh/ 200"))
      .toBe("GET /api/auth/password/reset/confirm/MTI/[redacted]/ 200");
    expect(redact("https://h.example/api/auth/password/reset/confirm/MTI/tok/")).toBe("https://h.example/api/auth/password/reset/confirm/MTI/[redacted]/");
    expect(redact("/api/auth/password/reset/confirm/MTI/set-password/")).toBe("/api/auth/password/reset/confirm/MTI/set-password/");
  });
});
