/**
 * A fake Enhydris API: api/stations/ (paginated, `pageSize` per page, absolute `next` links),
 * …/timeseriesgroups/, …/timeseries/, and …/data/?fmt=hts&start_date=… answering an HTS file
 * whose Timezone header is the station's display zone (records written in it), as Enhydris
 * does. `Authorization: token …` is required unless `publicData`; a wrong token gets 401
 * {"detail": "Invalid token."}.
 */
import { resolveTimeZone } from "@/lib/formats/timezone";
import { json, startFake, type FakeVendor, type StartOptions } from "@/tests/support/fake-vendors/base";

export interface EnhydrisSeries {
  id: number;
  type: string;
  name: string;
  time_step: string;
  /** [UTC "YYYY-MM-DDTHH:MM:SSZ", value ("" for none), flags], or a function giving them at each request. */
  records: [string, string, string][] | (() => [string, string, string][]);
}

export interface EnhydrisStation {
  id: number;
  name: string;
  /** An Etc/GMT±N zone or UTC. */
  displayTimezone: string;
  groups: { id: number; name: string; series: EnhydrisSeries[] }[];
}

export interface EnhydrisOptions extends StartOptions {
  token?: string;
  publicData?: boolean;
  pageSize?: number;
  stations?: EnhydrisStation[];
  /** Extra stations (id and name only) to make the list long. */
  moreStations?: number;
}

export interface FakeEnhydris extends FakeVendor {
  readonly dataRequests: () => Record<string, string>[];
}

export const DEFAULT_ENHYDRIS_STATIONS: EnhydrisStation[] = [
  {
    id: 42,
    name: "hobbiton",
    displayTimezone: "Etc/GMT-2",
    groups: [
      {
        id: 421,
        name: "temperature",
        series: [
          { id: 4211, type: "Initial", name: "Raw", time_step: "5min", records: [["2025-09-10T12:51:00Z", "2.1", ""], ["2025-09-10T13:01:00Z", "2.2", "SUSPECT HIGH"], ["2025-09-10T13:11:00Z", "", "MISSING"]] },
          { id: 4212, type: "Aggregated", name: "Hi", time_step: "1h", records: [] },
        ],
      },
      { id: 422, name: "humidity", series: [{ id: 4221, type: "Initial", name: "Raw", time_step: "5min", records: [] }] },
    ],
  },
  { id: 43, name: "rivendell", displayTimezone: "UTC", groups: [] },
  { id: 44, name: "bree", displayTimezone: "UTC", groups: [] },
];

function offsetLabel(zone: string): string {
  const minutes = resolveTimeZone(zone)!.fixedOffsetMinutes!;
  const a = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${String(Math.floor(a / 60)).padStart(2, "0")}${String(a % 60).padStart(2, "0")}`;
}

/** "YYYY-MM-DD HH:MM" of a UTC instant in a fixed zone. */
function localText(utc: string, zone: string): string {
  const minutes = resolveTimeZone(zone)!.fixedOffsetMinutes!;
  return new Date(Date.parse(utc) + minutes * 60_000).toISOString().slice(0, 16).replace("T", " ");
}

export async function startFakeEnhydris(options: EnhydrisOptions = {}): Promise<FakeEnhydris> {
  const token = options.token ?? "topsecretpassword";
  const pageSize = options.pageSize ?? 20;
  const stations = options.stations ?? DEFAULT_ENHYDRIS_STATIONS;
  const all = [...stations.map((s) => ({ id: s.id, name: s.name })),
    ...Array.from({ length: options.moreStations ?? 0 }, (_, k) => ({ id: 1000 + k, name: `station ${k}` }))];
  let base = "";

  const page = (path: string, items: unknown[], pageText: string | null) => {
    const n = Math.max(1, Number(pageText ?? 1));
    const results = items.slice((n - 1) * pageSize, n * pageSize);
    const next = n * pageSize < items.length ? `${base}${path}?page=${n + 1}` : null;
    const previous = n > 1 ? `${base}${path}?page=${n - 1}` : null;
    return json({ count: items.length, next, previous, results });
  };

  const vendor = await startFake((request) => {
    const auth = request.headers.authorization;
    if (auth !== undefined && auth.toLowerCase() !== `token ${token}`.toLowerCase()) return json({ detail: "Invalid token." }, 401);
    if (auth === undefined && !options.publicData) return json({ detail: "Authentication credentials were not provided." }, 401);
    const p = request.path;
    if (p === "/api/stations/") return page(p, all, request.query.get("page"));
    let m = /^\/api\/stations\/(\d+)\/timeseriesgroups\/$/.exec(p);
    const station = (id: string) => stations.find((s) => s.id === Number(id));
    if (m) {
      const s = station(m[1]);
      if (!s) return json({ detail: "Not found." }, 404);
      return page(p, s.groups.map((g) => ({ id: g.id, name: g.name })), request.query.get("page"));
    }
    m = /^\/api\/stations\/(\d+)\/timeseriesgroups\/(\d+)\/timeseries\/$/.exec(p);
    if (m) {
      const g = station(m[1])?.groups.find((x) => x.id === Number(m![2]));
      if (!g) return json({ detail: "Not found." }, 404);
      return page(p, g.series.map(({ records: _records, ...rest }) => rest), request.query.get("page"));
    }
    m = /^\/api\/stations\/(\d+)\/timeseriesgroups\/(\d+)\/timeseries\/(\d+)\/data\/$/.exec(p);
    if (m) {
      const s = station(m[1]);
      const series = s?.groups.find((x) => x.id === Number(m![2]))?.series.find((x) => x.id === Number(m![3]));
      if (!s || !series) return json({ detail: "Not found." }, 404);
      if (request.query.get("fmt") !== "hts") return json({ detail: "fmt must be hts here" }, 400);
      const start = Date.parse(request.query.get("start_date") ?? "1000-01-01T00:00:00Z");
      const records = typeof series.records === "function" ? series.records() : series.records;
      const chosen = records.filter(([t]) => Date.parse(t) >= start);
      const header = [`Count=${chosen.length}`, "Title=x", `Timezone=${s.displayTimezone} (UTC${offsetLabel(s.displayTimezone)})`, "Variable=x", "Precision=2"];
      const lines = chosen.map(([t, v, f]) => `${localText(t, s.displayTimezone)},${v},${f}`);
      return { headers: { "Content-Type": "text/vnd.openmeteo.timeseries; charset=utf-8" }, body: `${[...header, "", ...lines].join("\r\n")}\r\n` };
    }
    return json({ detail: "Not found." }, 404);
  }, options);
  base = vendor.url;
  return Object.assign(vendor, {
    dataRequests: () => vendor.requests.filter((r) => r.path.endsWith("/data/")).map((r) => Object.fromEntries(r.query)),
  });
}
