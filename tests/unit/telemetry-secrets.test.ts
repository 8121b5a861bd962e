import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TelemetryConfig } from "@/lib/telemetry/driver";
import { TELEMETRY_TYPES } from "@/lib/telemetry/types";
import { driverContext, telemetryConfig } from "@/tests/support/telemetry-drivers";

/**
 * Every type, every call, against a server that repeats each request whole (its URL, every
 * header, its body) in an error or in a 200 answer of garbage: no message may carry the
 * password in any of the forms it travels in.
 */
const PASSWORD = "S3cr3t&Pa55 wörd/+=";
const FORMS = [
  PASSWORD,
  encodeURIComponent(PASSWORD),
  new URLSearchParams({ p: PASSWORD }).toString().slice(2),
  JSON.stringify(PASSWORD).slice(1, -1),
  Buffer.from(`alice:${PASSWORD}`).toString("base64"),
];

let server: Server;
let url: string;
let status = 400;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(status, { "Content-Type": "text/plain" });
      res.end(`You sent ${req.url} ${JSON.stringify(req.headers)} ${Buffer.concat(chunks).toString()}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function configFor(typeId: string, variant: "basic" | "header"): TelemetryConfig {
  return telemetryConfig({
    deviceLocator: typeId === "http_csv" ? `${url}/data.csv?from={start}&to={end}` : `${url}/api/`,
    username: variant === "header" && typeId === "http_csv" ? "" : "alice",
    password: PASSWORD,
    remoteStationId: typeId === "insigh" ? "device/channel" : "42",
    additionalConfig: typeId === "influxdb" ? { bucket: "b", measurement: "m", station_tag: "s" } : variant === "header" ? { header: "X-API-Key" } : {},
  });
}

describe("no message carries the password", () => {
  for (const type of TELEMETRY_TYPES) {
    for (const variant of type.id === "http_csv" ? (["basic", "header"] as const) : (["basic"] as const)) {
      it(`${type.id}${type.id === "http_csv" ? ` (${variant})` : ""}`, async () => {
        const messages: string[] = [];
        for (const answer of [400, 401, 500, 200]) {
          status = answer;
          const session = type.open(configFor(type.id, variant), driverContext());
          const calls = [() => session.connect(), () => session.listStations(), () => session.listSensors(), () => session.readingsAfter("421 4211", null)];
          for (const call of calls) {
            await call().then(() => undefined, (error: Error) => messages.push(error.message));
          }
          await session.disconnect();
        }
        expect(messages.length).toBeGreaterThan(0);
        // The server repeated the secret and it was blanked, in at least one message.
        expect(messages.some((m) => m.includes("***"))).toBe(true);
        for (const message of messages) for (const form of FORMS) expect(message).not.toContain(form);
      });
    }
  }
});
