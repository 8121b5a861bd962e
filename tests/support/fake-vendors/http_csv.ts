/**
 * A fake CSV server for the http_csv type: GET /data.csv?from=…[&to=…] answers a header line
 * and the rows whose (naive, local) timestamp is from `from` to `to`, after `preamble` lines,
 * with a delimiter and a timestamp format of choice. Authentication: none, HTTP Basic, or a
 * header carrying a key (401 otherwise).
 */
import { readingsOf, startFake, type FakeAnswer, type FakeVendor, type ReadingSource, type StartOptions } from "@/tests/support/fake-vendors/base";

/** A row: a naive local time "YYYY-MM-DDTHH:MM[:SS]" (compared with from/to) and values by column. */
export interface CsvRow {
  time: string;
  values: Record<string, number | string>;
}

export interface HttpCsvOptions extends StartOptions {
  columns?: string[];
  rows?: ReadingSource<CsvRow>;
  delimiter?: string;
  preamble?: string[];
  timestampHeader?: string;
  /** Writes a row's time as the server does (default: as given). */
  formatTime?: (time: string) => string;
  basic?: { user: string; password: string };
  header?: { name: string; value: string };
}

export interface FakeHttpCsv extends FakeVendor {
  /** A device_locator template for this server. */
  readonly template: string;
  readonly windows: () => { from: string | null; to: string | null }[];
}

export async function startFakeHttpCsv(options: HttpCsvOptions = {}): Promise<FakeHttpCsv> {
  const columns = options.columns ?? ["temperature", "humidity"];
  const rows = options.rows ?? { all: [] };
  const delimiter = options.delimiter ?? ",";
  const formatTime = options.formatTime ?? ((t: string) => t);

  const vendor = await startFake((request): FakeAnswer => {
    if (options.basic) {
      const expected = `Basic ${Buffer.from(`${options.basic.user}:${options.basic.password}`).toString("base64")}`;
      if (request.headers.authorization !== expected) return { status: 401, headers: { "WWW-Authenticate": 'Basic realm="logger"' }, body: "Unauthorized" };
    }
    if (options.header && request.headers[options.header.name.toLowerCase()] !== options.header.value) {
      return { status: 401, body: "Invalid API key" };
    }
    if (request.path !== "/data.csv") return { status: 404, body: "Not Found" };
    const from = request.query.get("from") ?? "";
    const to = request.query.get("to") ?? "9999";
    const chosen = (readingsOf(rows, "all") ?? []).filter((r) => r.time >= from && r.time <= to);
    const lines = [
      ...(options.preamble ?? []),
      [options.timestampHeader ?? "timestamp", ...columns].join(delimiter),
      ...chosen.map((r) => [formatTime(r.time), ...columns.map((c) => String(r.values[c] ?? ""))].join(delimiter)),
    ];
    return { headers: { "Content-Type": "text/csv" }, body: `${lines.join("\r\n")}\r\n` };
  }, options);
  return Object.assign(vendor, {
    template: `${vendor.url}/data.csv?from={start}&to={end}`,
    windows: () => vendor.requests.map((r) => ({ from: r.query.get("from"), to: r.query.get("to") })),
  });
}
