/**
 * Runs one fake vendor for a demo, with two sensors (temperature and humidity) whose readings
 * go from some days ago to now and keep coming as time passes, and prints what to type into the
 * telemetry wizard.
 *
 *   npx tsx --tsconfig tsconfig.json tests/support/fake-vendors/serve.ts meteoview2 --port 8123
 *
 * Options: --port N (default: a free one), --station ID (the vendor's station id), --zone ZONE
 * (the zone of the timestamps, for meteoview2 and http_csv; default Europe/Athens), --days N of
 * history (default 30), --step N minutes between readings (default 10). Stop it with Ctrl-C
 * (a stopped vendor is what the feed-health alert notices).
 */
import { resolveTimeZone } from "@/lib/formats/timezone";
import { formatNaive } from "@/lib/telemetry/readings";
import { telemetryType } from "@/lib/telemetry/types";
import { startFakeAddupi } from "@/tests/support/fake-vendors/addupi";
import type { FakeVendor } from "@/tests/support/fake-vendors/base";
import { startFakeEnhydris } from "@/tests/support/fake-vendors/enhydris";
import { startFakeHttpCsv } from "@/tests/support/fake-vendors/http_csv";
import { startFakeInflux } from "@/tests/support/fake-vendors/influxdb";
import { startFakeInsigh } from "@/tests/support/fake-vendors/insigh";
import { startFakeMeteoView2 } from "@/tests/support/fake-vendors/meteoview2";

const TYPES = ["addupi", "meteoview2", "influxdb", "insigh", "enhydris", "http_csv"] as const;
type TypeId = (typeof TYPES)[number];

function usage(message?: string): never {
  if (message) console.error(message);
  console.error(`usage: tsx tests/support/fake-vendors/serve.ts <${TYPES.join("|")}> [--port N] [--station ID] [--zone ZONE] [--days N] [--step MINUTES]`);
  process.exit(2);
}

function parseArgs(argv: string[]) {
  const [type, ...rest] = argv;
  if (!TYPES.includes(type as TypeId)) usage(type ? `unknown type "${type}"` : undefined);
  const options: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const name = rest[i];
    if (!name.startsWith("--") || rest[i + 1] === undefined) usage(`bad option "${name}"`);
    options[name.slice(2)] = rest[i + 1];
  }
  const number = (name: string, fallback: number, min: number) => {
    const v = options[name] === undefined ? fallback : Number(options[name]);
    if (!Number.isInteger(v) || v < min) usage(`--${name} must be a whole number of at least ${min}`);
    return v;
  };
  const zone = options.zone ?? "Europe/Athens";
  if (resolveTimeZone(zone) === null) usage(`unknown time zone "${zone}"`);
  return {
    type: type as TypeId,
    port: number("port", 0, 0),
    station: options.station,
    zone,
    days: number("days", 30, 0),
    step: number("step", 10, 1),
  };
}

const args = parseArgs(process.argv.slice(2));
const zone = resolveTimeZone(args.zone)!;
const stepSeconds = args.step * 60;

/** The instants (epoch seconds) of the demo's readings, up to now. */
function instants(): number[] {
  const now = Math.floor(Date.now() / 1000 / stepSeconds) * stepSeconds;
  const first = now - args.days * 86400;
  const out: number[] = [];
  for (let t = first; t <= now; t += stepSeconds) out.push(t);
  return out;
}

/** A day's cycle, the same for the same instant on every run. */
function value(sensor: "temperature" | "humidity", t: number): number {
  const hour = ((t / 3600) % 24) + zone.offsetSecondsAt(t) / 3600;
  const wave = Math.sin((2 * Math.PI * (hour - 9)) / 24);
  const jitter = Math.sin(t / 7919) * 0.4;
  return sensor === "temperature" ? Math.round((16 + 7 * wave + jitter) * 10) / 10 : Math.round(62 - 18 * wave + jitter * 3);
}

const local = (t: number) => formatNaive(t + zone.offsetSecondsAt(t));
const SENSORS = ["temperature", "humidity"] as const;

interface Wizard {
  vendor: FakeVendor;
  deviceLocator: string;
  username?: string;
  password: string;
  station?: string;
  additional?: Record<string, string>;
  sensors: string;
}

async function start(): Promise<Wizard> {
  const port = args.port;
  switch (args.type) {
    case "meteoview2": {
      const station = args.station ?? "1852";
      const ids = { temperature: "42a", humidity: "43b" };
      const vendor = await startFakeMeteoView2({
        port,
        email: "demo@example.org",
        apiKey: "demo-api-key",
        stations: [{ code: station, title: "Hobbiton" }, { code: "2581", title: "Rivendell" }],
        sensors: { [station]: SENSORS.map((s) => ({ id: ids[s], title: s })) },
        readings: (id) => {
          const sensor = SENSORS.find((s) => ids[s] === id);
          return sensor ? instants().map((t) => ({ time: local(t), value: value(sensor, t) })) : [];
        },
      });
      return { vendor, deviceLocator: vendor.apiUrl, username: "demo@example.org", password: "demo-api-key", station: `Hobbiton (${station})`, sensors: "temperature (42a), humidity (43b)" };
    }
    case "addupi": {
      const station = args.station ?? "1852";
      const ids = { temperature: "42a", humidity: "43b" };
      const vendor = await startFakeAddupi({
        port,
        user: "demo",
        password: "demo-password",
        devices: [{ id: station, name: "Hobbiton", subclass: "", sensors: SENSORS.map((s) => ({ id: ids[s], name: s })) }],
        readings: (id) => {
          const sensor = SENSORS.find((s) => ids[s] === id);
          return sensor ? instants().map((t) => ({ t, value: String(value(sensor, t)), s: 0 })) : [];
        },
      });
      return { vendor, deviceLocator: vendor.url, username: "demo", password: "demo-password", station: `Hobbiton (${station})`, sensors: "temperature (42a), humidity (43b)" };
    }
    case "influxdb": {
      const station = args.station ?? "hobbiton";
      const vendor = await startFakeInflux({
        port,
        org: "demo",
        token: "demo-token",
        bucket: "weather",
        measurement: "stations",
        stationTag: "station",
        points: () => instants().flatMap((t) => SENSORS.map((s) => ({ station, field: s, time: `${formatNaive(t)}Z`, value: value(s, t) }))),
      });
      return {
        vendor, deviceLocator: vendor.apiUrl, username: "demo", password: "demo-token", station,
        additional: { bucket: "weather", measurement: "stations", station_tag: "station" }, sensors: "temperature, humidity",
      };
    }
    case "insigh": {
      const device = args.station ?? "station-1-id";
      const vendor = await startFakeInsigh({
        port,
        token: "demo-token",
        devices: [{ id: device, name: "Hobbiton", dataChannel: "data-channel", sensors: ["Temperature", "Humidity"] }],
        rows: (id) => (id === device ? instants().map((t) => ({ ms: t * 1000, values: { Temperature: value("temperature", t), Humidity: value("humidity", t) } })) : []),
      });
      return { vendor, deviceLocator: vendor.apiUrl, password: "demo-token", station: `Hobbiton (${device}/data-channel)`, sensors: "Temperature, Humidity" };
    }
    case "enhydris": {
      const station = Number(args.station ?? 42);
      if (!Number.isInteger(station)) usage("--station must be a number for enhydris");
      const series = (id: number, sensor: "temperature" | "humidity") => ({
        id, type: "Initial", name: "", time_step: `${args.step}min`,
        records: () => instants().map((t): [string, string, string] => [`${formatNaive(t)}Z`, String(value(sensor, t)), ""]),
      });
      const vendor = await startFakeEnhydris({
        port,
        token: "demo-token",
        stations: [{
          id: station, name: "Hobbiton", displayTimezone: "Etc/GMT-2",
          groups: [{ id: 421, name: "temperature", series: [series(4211, "temperature")] }, { id: 422, name: "humidity", series: [series(4221, "humidity")] }],
        }],
      });
      return { vendor, deviceLocator: vendor.url, password: "demo-token", station: `Hobbiton (${station})`, sensors: '"temperature - Initial  10min" (421 4211), "humidity - Initial  10min" (422 4221)' };
    }
    case "http_csv": {
      const vendor = await startFakeHttpCsv({
        port,
        header: { name: "X-API-Key", value: "demo-key" },
        rows: () => instants().map((t) => ({ time: local(t), values: { temperature: value("temperature", t), humidity: value("humidity", t) } })),
      });
      return { vendor, deviceLocator: vendor.template, password: "demo-key", additional: { header: "X-API-Key" }, sensors: "temperature, humidity (the CSV's columns)" };
    }
  }
}

async function main(): Promise<void> {
  const wizard = await start();
  const type = telemetryType(args.type)!;
  const label = (field: "device_locator" | "username" | "password" | "remote_station_id" | "data_timezone", fallback: string) => type.fields[field]?.label ?? fallback;
  const lines: [string, string][] = [["Type", type.name]];
  if (type.usesDataTimezone) lines.push([label("data_timezone", "Time zone"), args.zone]);
  lines.push([label("device_locator", "URL"), wizard.deviceLocator]);
  if (wizard.username !== undefined) lines.push([label("username", "Username"), wizard.username]);
  lines.push([label("password", "Password"), wizard.password]);
  for (const [key, v] of Object.entries(wizard.additional ?? {})) lines.push([type.additionalConfig[key]?.label ?? key, v]);
  if (wizard.station !== undefined) lines.push([label("remote_station_id", "Remote station"), wizard.station]);
  lines.push(["Sensors", wizard.sensors]);
  const width = Math.max(...lines.map(([k]) => k.length)) + 1;
  const first = instants()[0];

  console.log([
    `Fake ${type.name} listening on ${wizard.vendor.url} (Ctrl-C to stop).`,
    "",
    "The service must be allowed to reach 127.0.0.1: start it with",
    "  ENHYDRIS_OUTBOUND_ALLOW=127.0.0.1",
    "",
    "Then, in /manage/stations/<station id>/telemetry/, type:",
    ...lines.map(([k, v]) => `  ${`${k}:`.padEnd(width)} ${v}`),
    "",
    `Readings every ${args.step} minutes from ${formatNaive(first).replace("T", " ")} UTC to now, and more as time passes.`,
  ].join("\n"));

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await wizard.vendor.close();
    console.log(`\nStopped after ${wizard.vendor.requests.length} requests.`);
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
