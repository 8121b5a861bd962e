import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseRecords } from "@/components/manage/workbench-requests";

/**
 * The workbench's records loader (components/manage/records-loader.ts) with the real records
 * worker (components/manage/records-worker.ts) run in-process: the worker's scope and the page's
 * Worker object exchange structured clones asynchronously, as a dedicated worker's do.
 */
const CSV = "2010-01-01 00:00,1.5,\r\n2010-01-01 00:10,,\r\n2010-01-01 00:20,-3,SUSPECT\r\n";
const URL_A = "/api/stations/1/timeseriesgroups/2/timeseries/3/data/?start_date=2010-01-01T00%3A00%3A00Z&end_date=2010-01-02T00%3A00%3A00Z&timezone=UTC";

type Loader = typeof import("@/components/manage/records-loader");
let fetchMock: ReturnType<typeof vi.fn>;
let workers: FakeWorker[];
/** Whether the worker's script fails to load (its error event instead of its messages). */
let scriptFails = false;

class FakeWorker {
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  private scope: { onmessage: ((e: { data: unknown }) => void) | null; postMessage: (m: unknown) => void } | null = null;
  private ready: Promise<void>;
  constructor(readonly url: string) {
    workers.push(this);
    this.ready = scriptFails ? Promise.resolve() : this.start();
    if (scriptFails) setTimeout(() => this.onerror?.({ message: "script failed" }), 5);
  }
  private async start() {
    const scope = { onmessage: null as ((e: { data: unknown }) => void) | null, postMessage: (m: unknown) => setTimeout(() => this.onmessage?.({ data: structuredClone(m) }), 1) };
    vi.stubGlobal("self", scope);
    vi.resetModules();
    await import("@/components/manage/records-worker");
    this.scope = scope;
  }
  postMessage(data: unknown) {
    void this.ready.then(() => setTimeout(() => this.scope?.onmessage?.({ data: structuredClone(data) }), 1));
  }
}

function csvResponse(text = CSV, status = 200, type = "text/csv; charset=utf-8") {
  return new Response(text, { status, headers: { "Content-Type": type } });
}

async function freshLoader(): Promise<Loader> {
  vi.resetModules();
  return import("@/components/manage/records-loader");
}

beforeEach(() => {
  workers = [];
  scriptFails = false;
  fetchMock = vi.fn(async () => csvResponse());
  vi.stubGlobal("fetch", fetchMock);
  vi.stubGlobal("window", globalThis);
  vi.stubGlobal("Worker", FakeWorker);
  delete (globalThis as { __enhydrisRecords?: unknown }).__enhydrisRecords;
});
afterEach(() => vi.unstubAllGlobals());

const columnsOf = (r: Awaited<ReturnType<Loader["loadRecords"]>>) => {
  if (!("records" in r)) throw new Error("refused");
  return r.records.slice(0, r.records.length);
};

describe("the workbench's records, read by the records worker", () => {
  it("takes the answer to the page's early request (its inline script), read exactly as on the main thread; a reload asks anew", async () => {
    const { earlyRecordsScript, loadRecords } = await freshLoader();
    new Function(earlyRecordsScript(URL_A))();
    expect(workers).toHaveLength(1);
    expect(workers[0].url).toBe("/_enhydris/records-worker.js");
    const first = await loadRecords(URL_A, new AbortController().signal);
    expect(columnsOf(first)).toEqual(parseRecords(CSV).slice(0, 3));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0][0]).toBe(URL_A);
    // After a correction the workbench loads the same range again: a new request, same worker.
    fetchMock.mockImplementation(async () => csvResponse("2010-01-01 00:00,2,\n"));
    const again = await loadRecords(URL_A, new AbortController().signal);
    expect(columnsOf(again)).toEqual([{ t: 1262304000, v: 2, text: "2", flags: "" }]);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(workers).toHaveLength(1);
  });

  it("also when the early answer came before the workbench asked for it", async () => {
    const { earlyRecordsScript, loadRecords } = await freshLoader();
    new Function(earlyRecordsScript(URL_A))();
    await vi.waitFor(() => expect((globalThis as { __enhydrisRecords?: { answer?: unknown } }).__enhydrisRecords?.answer).toBeDefined());
    expect(columnsOf(await loadRecords(URL_A, new AbortController().signal))).toHaveLength(3);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("hands a refusal back as the server's response, and a network failure as fetch's error", async () => {
    const { loadRecords } = await freshLoader();
    fetchMock.mockImplementation(async () => csvResponse('{"detail":"You do not have permission to perform this action."}', 403, "application/json"));
    const refused = await loadRecords(URL_A, new AbortController().signal);
    expect("refused" in refused && refused.refused.status).toBe(403);
    expect("refused" in refused && (await refused.refused.json())).toEqual({ detail: "You do not have permission to perform this action." });
    expect("refused" in refused && refused.refused.headers.get("content-type")).toBe("application/json");
    fetchMock.mockImplementation(async () => {
      throw new TypeError("Failed to fetch");
    });
    await expect(loadRecords(URL_A, new AbortController().signal)).rejects.toThrow(new TypeError("Failed to fetch"));
  });

  it("stops a request no longer wanted: the promise fails with an AbortError and the worker aborts its fetch", async () => {
    const { loadRecords } = await freshLoader();
    let fetchSignal: AbortSignal | undefined;
    fetchMock.mockImplementation((_url: string, init: RequestInit) => {
      fetchSignal = init.signal!;
      return new Promise((_, reject) => init.signal!.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
    });
    const controller = new AbortController();
    const loading = loadRecords(URL_A, controller.signal);
    await vi.waitFor(() => expect(fetchSignal).toBeDefined());
    controller.abort();
    await expect(loading).rejects.toMatchObject({ name: "AbortError" });
    await vi.waitFor(() => expect(fetchSignal!.aborted).toBe(true));
  });

  it("reads on the main thread where no worker can run: none in the browser, or its script failed", async () => {
    vi.stubGlobal("Worker", undefined);
    let loader = await freshLoader();
    expect(columnsOf(await loader.loadRecords(URL_A, new AbortController().signal))).toHaveLength(3);
    vi.stubGlobal("Worker", FakeWorker);
    scriptFails = true;
    loader = await freshLoader();
    new Function(loader.earlyRecordsScript(URL_A))();
    expect(columnsOf(await loader.loadRecords(URL_A, new AbortController().signal))).toHaveLength(3);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it("writes the early script's arguments so that no text of theirs can end the script", async () => {
    const { earlyRecordsScript } = await freshLoader();
    expect(earlyRecordsScript("/x/?q=</script><script>alert(1)//")).not.toContain("</script>");
  });
});
