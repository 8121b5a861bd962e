/**
 * The workbench's records worker (built for the browser by scripts/build-server.mjs, served at
 * RECORDS_WORKER_PATH): fetches a range's records and reads them into columns (readColumns) off
 * the page's main thread, which is busy starting React meanwhile. A year of 10-minute records
 * is 1.2 MB of CSV, ~80 ms to read on a slow machine.
 *
 * It answers each `{ id, url }` with a RecordsAnswer; `{ cancel: id }` stops that request.
 */
import { readColumns } from "@/components/manage/workbench-requests";
import type { RecordsAnswer, RecordsRequest } from "@/components/manage/records-loader";

interface WorkerScope {
  onmessage: ((event: MessageEvent<RecordsRequest>) => void) | null;
  postMessage(message: RecordsAnswer, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

// ICU's list of the locales each Intl service supports is built on its first use, once per
// renderer process (V8 keeps it process-wide) — about 25 ms on a slow machine, which the page's
// first message with an argument (next-intl's IntlMessageFormat asks Intl.NumberFormat) would
// otherwise spend in the middle of hydrating. The worker, on its own thread, builds it first.
Intl.NumberFormat.supportedLocalesOf("en");
Intl.PluralRules.supportedLocalesOf("en");
const pending = new Map<number, AbortController>();

async function answer(id: number, url: string, signal: AbortSignal): Promise<void> {
  try {
    const response = await fetch(url, { signal, credentials: "same-origin" });
    const text = await response.text();
    if (signal.aborted) return;
    if (!response.ok) {
      scope.postMessage({ id, kind: "refused", status: response.status, contentType: response.headers.get("Content-Type") ?? "", body: text });
      return;
    }
    const columns = readColumns(text);
    scope.postMessage({ id, kind: "records", text, columns }, [columns.t.buffer, columns.v.buffer, columns.spans.buffer, columns.flagged.buffer]);
  } catch (e) {
    if (!signal.aborted) scope.postMessage({ id, kind: "failed", message: (e as Error).message });
  } finally {
    pending.delete(id);
  }
}

scope.onmessage = ({ data }) => {
  if ("cancel" in data) {
    pending.get(data.cancel)?.abort();
    return;
  }
  const controller = new AbortController();
  pending.set(data.id, controller);
  void answer(data.id, data.url, controller.signal);
};
