/**
 * A fake insigh.io console API (under /mf-rproxy/), answering as the reference's tests record:
 * device/list → [{id, name, metadata: {dataChannel}}]; device/lastMeasurement?channel&id →
 * [{name: "<hex>-<sensor>", …}]; measurement/queryPack?channel&publisher&startRange&limit&
 * format=csv → a CSV of quoted "time" (epoch ms), "publisher" and a column per sensor, from
 * startRange on. The API token is the whole Authorization header.
 */
import { json, readingsOf, startFake, type FakeVendor, type ReadingSource, type StartOptions } from "@/tests/support/fake-vendors/base";

/** A row of queryPack: epoch milliseconds and a value per sensor ("" or absent: empty cell). */
export interface InsighRow {
  ms: number;
  values: Record<string, number | string>;
}

export interface InsighDevice {
  id: string;
  name: string;
  dataChannel: string;
  sensors: string[];
}

export interface InsighOptions extends StartOptions {
  token?: string;
  devices?: InsighDevice[];
  /** Rows by device id. */
  rows?: ReadingSource<InsighRow>;
}

export interface FakeInsigh extends FakeVendor {
  readonly apiUrl: string;
  readonly packRequests: () => Record<string, string>[];
}

export async function startFakeInsigh(options: InsighOptions = {}): Promise<FakeInsigh> {
  const token = options.token ?? "top-secret-token";
  const devices = options.devices ?? [
    { id: "station-1-id", name: "Station 1", dataChannel: "station-1-data-channel", sensors: ["Precipitation", "R_Humidity", "Temperature"] },
    { id: "station-2-id", name: "Station 2", dataChannel: "station-2-data-channel", sensors: ["W_Speed"] },
  ];
  const rows = options.rows ?? {};

  const vendor = await startFake((request) => {
    if (request.headers.authorization !== token) return json({ error: "missing or invalid credentials provided" }, 401);
    const q = request.query;
    switch (request.path) {
      case "/mf-rproxy/device/list":
        return json(devices.map((d) => ({ id: d.id, name: d.name, metadata: { dataChannel: d.dataChannel } })));
      case "/mf-rproxy/device/lastMeasurement": {
        const device = devices.find((d) => d.id === q.get("id") && d.dataChannel === q.get("channel"));
        if (!device) return json({ error: "entity not found" }, 404);
        return json(device.sensors.flatMap((s) => [
          { time: "2025-11-11T04:45:04Z", name: `f412fac3b9d0-${s}`, publisher: device.id, unit: "", value: 0, stringValue: null },
          { time: "2025-11-11T04:45:04Z", name: `f412fac3b9d0-${s}_Raw`, publisher: device.id, unit: "", value: 0, stringValue: null },
        ]));
      }
      case "/mf-rproxy/measurement/queryPack": {
        const device = devices.find((d) => d.id === q.get("publisher") && d.dataChannel === q.get("channel"));
        if (!device) return json({ error: "entity not found" }, 404);
        const start = Date.parse(q.get("startRange") ?? "");
        if (!Number.isFinite(start) || q.get("format") !== "csv") return json({ error: "malformed query" }, 400);
        const limit = Number(q.get("limit") ?? 1000);
        const chosen = (readingsOf(rows, device.id) ?? []).filter((r) => r.ms >= start).slice(0, limit);
        const columns = [...new Set(chosen.flatMap((r) => Object.keys(r.values)))];
        if (chosen.length === 0) return { headers: { "Content-Type": "text/csv" }, body: "" };
        const lines = [
          ["time", "publisher", ...columns].map((c) => `"${c}"`).join(","),
          ...chosen.map((r) => [`"${r.ms}"`, `"${device.id}"`, ...columns.map((c) => String(r.values[c] ?? ""))].join(",")),
        ];
        return { headers: { "Content-Type": "text/csv" }, body: `${lines.join("\n")}\n` };
      }
      default:
        return json({ error: "not found" }, 404);
    }
  }, options);
  return Object.assign(vendor, {
    apiUrl: `${vendor.url}/mf-rproxy/`,
    packRequests: () => vendor.requests.filter((r) => r.path.endsWith("/queryPack")).map((r) => Object.fromEntries(r.query)),
  });
}
