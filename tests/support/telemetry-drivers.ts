/**
 * What the tests of telemetry types share: a driver context that allows 127.0.0.1 only, a
 * configuration with defaults, and the faults every type must survive (an error status,
 * garbage, an empty answer, a redirect to a refused address, a gigabyte, an answer that never
 * comes or never ends or is cut off, a vendor echoing the password): each gives a
 * TelemetryError with a clear message, quickly, without the password.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseOutboundAllow } from "@/lib/outbound";
import type { DriverContext, TelemetryConfig, TelemetrySession, TelemetryType } from "@/lib/telemetry/driver";
import { TelemetryError } from "@/lib/telemetry/errors";
import type { FakeVendor } from "@/tests/support/fake-vendors/base";

const parsed = parseOutboundAllow("127.0.0.1");
if (!parsed.ok) throw new Error(parsed.error);
export const ALLOW_LOCAL = parsed.allow;

export const MB = 1024 * 1024;

export function driverContext(extra: Partial<DriverContext> = {}): DriverContext {
  return { allow: ALLOW_LOCAL, timeoutMs: 5000, maxBytes: MB, ...extra };
}

export function telemetryConfig(extra: Partial<TelemetryConfig> = {}): TelemetryConfig {
  return {
    deviceLocator: "",
    username: "",
    password: "",
    remoteStationId: "",
    additionalConfig: {},
    dataTimezone: "UTC",
    verifyTls: true,
    ...extra,
  };
}

/** The TelemetryError a promise rejects with (anything else fails the test). */
export async function telemetryFailure(promise: Promise<unknown>): Promise<TelemetryError> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof TelemetryError)) throw new Error(`expected a TelemetryError, got ${String(error)}`);
    return error;
  }
  throw new Error("expected a TelemetryError, the call succeeded");
}

/** "YYYY-MM-DDTHH:MM:SSZ" → epoch seconds. */
export const epoch = (iso: string) => Date.parse(iso) / 1000;

export interface FaultCase {
  /** The fake, started with the type's usual answers. */
  vendor: FakeVendor;
  type: TelemetryType;
  config: TelemetryConfig;
  /** What the fault is put on: a part of the request's path and query. */
  match: string;
  /** The calls of a session that reach the faulted request. */
  run: (session: TelemetrySession) => Promise<unknown>;
}

/**
 * The faults every type must survive, on the request `match` of `setup()` (a fresh fake per
 * test); `password` is the configuration's, which no message may contain.
 */
export function describeCommonFaults(name: string, setup: () => Promise<FaultCase>): void {
  describe(`${name}: faults`, () => {
    let c: FaultCase;
    let host: string;
    beforeEach(async () => {
      c = await setup();
      host = new URL(c.vendor.url).host;
    });
    afterEach(() => c.vendor.close());

    const attempt = async (extra: Partial<DriverContext> = {}) => {
      const session = c.type.open(c.config, driverContext(extra));
      const started = Date.now();
      try {
        return { error: await telemetryFailure(c.run(session)), ms: Date.now() - started };
      } finally {
        await session.disconnect();
      }
    };

    it("HTTP 500 gives the status and what the vendor said", async () => {
      c.vendor.fail(c.match, { kind: "status", status: 500, body: "Internal Server Error: the database is down" });
      const { error } = await attempt();
      expect(error.message).toBe(`${host} answered HTTP 500: Internal Server Error: the database is down`);
    });

    it("an HTML error page gives its title", async () => {
      c.vendor.fail(c.match, { kind: "status", status: 503, contentType: "text/html", body: "<html><head><title>503 Service Unavailable</title></head><body>…</body></html>" });
      expect((await attempt()).error.message).toBe(`${host} answered HTTP 503: 503 Service Unavailable`);
    });

    it("garbage gives an error naming the vendor", async () => {
      c.vendor.fail(c.match, { kind: "body", body: "<<<this is not what the vendor sends>>>\n{[,;" });
      expect((await attempt()).error.message).toContain(host);
    });

    it("binary garbage gives an error naming the vendor", async () => {
      c.vendor.fail(c.match, { kind: "body", body: Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xfe, 10, 0, 34]) });
      expect((await attempt()).error.message).toContain(host);
    });

    it("an empty answer gives an error or nothing, never a crash", async () => {
      c.vendor.fail(c.match, { kind: "body", body: "" });
      const session = c.type.open(c.config, driverContext());
      try {
        await c.run(session);
      } catch (error) {
        expect(error).toBeInstanceOf(TelemetryError);
        expect((error as Error).message).toContain(host);
      } finally {
        await session.disconnect();
      }
    });

    it("a redirect to a loopback address that is not allowed is refused", async () => {
      c.vendor.fail(c.match, { kind: "redirect", location: "http://127.0.0.2:9/steal" });
      expect((await attempt()).error.message).toBe(`${host} redirects to 127.0.0.2:9; 127.0.0.2 is a loopback address, which is not allowed (see ENHYDRIS_OUTBOUND_ALLOW)`);
    });

    it("a redirect to the cloud metadata address is refused", async () => {
      c.vendor.fail(c.match, { kind: "redirect", location: "http://169.254.169.254/latest/meta-data/", status: 307 });
      expect((await attempt()).error.message).toMatch(new RegExp(`^${host.replace(/\./g, "\\.")} redirects to 169\\.254\\.169\\.254(; 169\\.254\\.169\\.254 is a cloud metadata address, which is not allowed \\(see ENHYDRIS_OUTBOUND_ALLOW\\)|, which would receive the request's body again; use 169\\.254\\.169\\.254 directly)$`));
    });

    it("a gigabyte with a Content-Length is refused at once", async () => {
      c.vendor.fail(c.match, { kind: "huge", bytes: 1024 * MB, declareLength: true });
      const { error } = await attempt();
      expect(error.message).toBe(`the answer of ${host} is larger than 1 MB, the limit`);
      expect(c.vendor.hugeBytesWritten).toBeLessThan(64 * MB);
    });

    it("a gigabyte without a Content-Length is refused after the limit", async () => {
      c.vendor.fail(c.match, { kind: "huge", bytes: 1024 * MB, declareLength: false });
      const { error } = await attempt();
      expect(error.message).toBe(`the answer of ${host} is larger than 1 MB, the limit`);
      expect(c.vendor.hugeBytesWritten).toBeLessThan(64 * MB);
    });

    it("a vendor that never answers times out", async () => {
      c.vendor.fail(c.match, { kind: "hang" });
      const { error, ms } = await attempt({ timeoutMs: 400 });
      expect(error.message).toBe(`the answer of ${host} timed out after 0.4 s`);
      expect(ms).toBeLessThan(3000);
    });

    it("a vendor that trickles forever times out", async () => {
      c.vendor.fail(c.match, { kind: "drip", intervalMs: 50 });
      const { error, ms } = await attempt({ timeoutMs: 400 });
      expect(error.message).toBe(`the answer of ${host} timed out after 0.4 s`);
      expect(ms).toBeLessThan(3000);
    });

    it("an answer cut off says so", async () => {
      c.vendor.fail(c.match, { kind: "cut" });
      expect((await attempt()).error.message).toBe(`${host} closed the connection before its answer was complete`);
    });

    it("a vendor that stopped gives 'refused the connection'", async () => {
      await c.vendor.close();
      expect((await attempt()).error.message).toBe(`${host} refused the connection`);
    });

    it("no message carries the password (nor a token), even when the vendor repeats the request", async () => {
      const password = c.config.password;
      expect(password.length).toBeGreaterThan(3);
      for (const status of [400, 401, 500]) {
        c.vendor.clearFaults();
        c.vendor.fail(c.match, { kind: "echo", status });
        const { error } = await attempt();
        expect(error.message).toContain(host);
        // The vendor repeated a secret of the request, and it was blanked.
        expect(error.message).toContain("***");
        expect(error.message).not.toContain(password);
        expect(error.message).not.toContain(encodeURIComponent(password));
      }
    });
  });
}
