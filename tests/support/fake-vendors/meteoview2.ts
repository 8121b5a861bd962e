/**
 * A fake Metrica MeteoView2 API (under /api/), answering as the reference's tests record:
 * POST token {"email","key"} → {"code":"200","token"}; stations → {"stations":{code:{code,title}}};
 * sensors {"station_code"} → {"sensors":[{id,title}]}; measurements {"sensor":[id],"datefrom",
 * "timefrom","dateto"} → {"measurements":[{"total_values", "values":[{year, month (0-based),
 * day, hour, minute, mvalue}]}]} for the readings from datefrom+timefrom to the end of dateto.
 * Every answer has a "code"; errors are HTTP 200 with another code and a "message".
 */
import { json, jsonBody, readingsOf, startFake, type FakeVendor, type ReadingSource, type StartOptions } from "@/tests/support/fake-vendors/base";

/** A reading at a local time "YYYY-MM-DDTHH:MM[:SS]" (data_timezone's wall clock). */
export interface MeteoView2Reading {
  time: string;
  value: number | string | null;
}

export interface MeteoView2Options extends StartOptions {
  email?: string;
  apiKey?: string;
  stations?: { code: string; title: string }[];
  /** Sensors by station code. */
  sensors?: Record<string, { id: string; title: string }[]>;
  readings?: ReadingSource<MeteoView2Reading>;
}

export interface FakeMeteoView2 extends FakeVendor {
  /** The API URL to type as device_locator. */
  readonly apiUrl: string;
  readonly token: string;
  /** The measurement windows asked, in order. */
  readonly windows: () => { sensor: unknown; datefrom: unknown; timefrom: unknown; dateto: unknown }[];
}

export async function startFakeMeteoView2(options: MeteoView2Options = {}): Promise<FakeMeteoView2> {
  const email = options.email ?? "alice@example.org";
  const apiKey = options.apiKey ?? "topsecretapikey";
  const token = "topsecretapitoken";
  const stations = options.stations ?? [{ code: "1852", title: "Hobbiton" }, { code: "2581", title: "Rivendell" }];
  const sensors = options.sensors ?? { "1852": [{ id: "42a", title: "temperature" }, { id: "43b", title: "humidity" }] };
  const readings = options.readings ?? {};

  const vendor = await startFake((request) => {
    const body = jsonBody(request) as Record<string, unknown> | undefined;
    if (request.method !== "POST") return json({ code: "405", message: "Method not allowed" });
    if (request.path === "/api/token") {
      if (body?.email === email && body?.key === apiKey) return json({ code: "200", token });
      return json({ code: "401", message: "Wrong email or API key" });
    }
    if (request.headers.authorization !== `Bearer ${token}`) return json({ code: "401", message: "Unauthorized" });
    switch (request.path) {
      case "/api/stations":
        return json({ code: "200", stations: Object.fromEntries(stations.map((s) => [s.code, s])) });
      case "/api/sensors": {
        const list = sensors[String(body?.station_code)];
        if (list === undefined) return json({ code: "404", message: "Station not found" });
        return json({ code: "200", sensors: list });
      }
      case "/api/measurements": {
        const sensor = Array.isArray(body?.sensor) ? String(body.sensor[0]) : "";
        const from = `${String(body?.datefrom)}T${String(body?.timefrom)}`;
        const to = `${String(body?.dateto)}T23:59:59`;
        const values = (readingsOf(readings, sensor) ?? [])
          .filter((r) => r.time >= from && r.time <= to)
          .map((r) => {
            const [date, time] = r.time.split("T");
            const [year, month, day] = date.split("-");
            const [hour, minute] = time.split(":");
            return { year, month: String(Number(month) - 1), day: String(Number(day)), hour, minute, mvalue: r.value === null ? null : String(r.value) };
          });
        if (values.length === 0) return json({ code: "200", measurements: [{ total_values: 0 }] });
        return json({ code: "200", measurements: [{ total_values: values.length, values }] });
      }
      default:
        return json({ code: "404", message: "Not found" });
    }
  }, options);
  return Object.assign(vendor, {
    apiUrl: `${vendor.url}/api/`,
    token,
    windows: () => vendor.requests.filter((r) => r.path === "/api/measurements").map((r) => jsonBody(r) as never),
  });
}
