/**
 * How the workbench gets a range's records: fetched and read into columns by the records worker
 * (components/manage/records-worker.ts) off the main thread, or on it where no worker can start.
 *
 * The page starts the worker on its first range before any of its scripts has loaded (an inline
 * script, earlyRecordsScript), so that the records are read while React starts; the workbench
 * takes that first answer over (request 0) and sends the worker its later ranges.
 */
import { RECORDS_WORKER_PATH } from "@/lib/site/paths";
import { parseRecords, RecordColumns, type ParsedColumns } from "@/components/manage/workbench-requests";


export type RecordsRequest = { id: number; url: string } | { cancel: number };
export type RecordsAnswer =
  | { id: number; kind: "records"; text: string; columns: ParsedColumns }
  /** The server's answer was not 2xx: its status and body, for the page to word. */
  | { id: number; kind: "refused"; status: number; contentType: string; body: string }
  /** No answer (the network failed). */
  | { id: number; kind: "failed"; message: string };

/** What the inline script leaves on the window: its worker, asked for `url` as request 0, and the answer once there. */
interface EarlyRecords {
  url: string;
  worker: Worker;
  answer?: RecordsAnswer;
  /** Set when the worker's script could not run: the answer will never come. */
  broken?: boolean;
  /** Set once the workbench has taken the answer (a later range asks anew). */
  taken?: boolean;
  wait?: () => void;
}

declare global {
  interface Window {
    __enhydrisRecords?: EarlyRecords;
  }
}

/** The inline script (the page adds it with the CSP nonce) that starts the worker on the first range's records. */
export function earlyRecordsScript(url: string): string {
  const args = JSON.stringify([url, RECORDS_WORKER_PATH]).replace(/</g, "\\u003c");
  return "(function(u,p){try{var s={url:u,worker:new Worker(p)};"
    + "s.worker.onmessage=function(e){s.answer=e.data;if(s.wait)s.wait()};"
    + "s.worker.onerror=function(){s.broken=true;if(s.wait)s.wait()};"
    + "s.worker.postMessage({id:0,url:u});window.__enhydrisRecords=s}catch(e){}})"
    + `.apply(null,${args})`;
}

export type LoadedRecords = { records: RecordColumns } | { refused: Response };

/** null: no worker can run here (none could start, or its script failed); the main thread reads. */
let worker: Worker | null | undefined;
let nextId = 1;
const waiting = new Map<number, (answer: RecordsAnswer | null) => void>();

function takeWorker(): Worker | null {
  if (worker !== undefined) return worker;
  const early = window.__enhydrisRecords;
  try {
    worker = early && !early.broken ? early.worker : typeof Worker === "function" ? new Worker(RECORDS_WORKER_PATH) : null;
  } catch {
    worker = null;
  }
  if (!worker) return null;
  if (early && !early.broken && early.answer === undefined) {
    // Request 0 is still out: its answer (or the worker's failure) now comes through here.
    waiting.set(0, (answer) => {
      if (answer) early.answer = answer;
      else early.broken = true;
      early.wait?.();
    });
  }
  worker.onmessage = ({ data }: MessageEvent<RecordsAnswer>) => {
    const done = waiting.get(data.id);
    waiting.delete(data.id);
    done?.(data);
  };
  worker.onerror = () => {
    worker = null;
    for (const done of waiting.values()) done(null);
    waiting.clear();
  };
  return worker;
}

/** The answer to request 0, if `url` is what the page asked for first (taken once); undefined otherwise. */
function earlyAnswer(url: string): Promise<RecordsAnswer | null> | undefined {
  const early = window.__enhydrisRecords;
  if (!early || early.taken || early.broken || early.url !== url) return undefined;
  early.taken = true;
  return new Promise((resolve) => {
    const settle = () => resolve(early.broken ? null : (early.answer ?? null));
    if (early.answer || early.broken) settle();
    else early.wait = settle;
  });
}

async function onMainThread(url: string, signal: AbortSignal): Promise<LoadedRecords> {
  const response = await fetch(url, { signal, credentials: "same-origin" });
  if (!response.ok) return { refused: response };
  return { records: parseRecords(await response.text()) };
}

/** The records at `url` (data/'s CSV with UTC times), through the worker where there is one. */
export async function loadRecords(url: string, signal: AbortSignal): Promise<LoadedRecords> {
  const w = takeWorker();
  let id = 0;
  let answer = w ? earlyAnswer(url) : undefined;
  if (w && !answer) {
    id = nextId++;
    answer = new Promise((resolve) => waiting.set(id, resolve));
    w.postMessage({ id, url } satisfies RecordsRequest);
  }
  if (!answer) return onMainThread(url, signal);
  const stop = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => {
      waiting.delete(id);
      worker?.postMessage({ cancel: id } satisfies RecordsRequest);
      reject(signal.reason);
    }, { once: true });
  });
  const got = await Promise.race([answer, stop]);
  if (got === null) return onMainThread(url, signal);
  if (got.kind === "failed") throw new TypeError(got.message);
  if (got.kind === "refused") return { refused: new Response(got.body, { status: got.status, headers: { "Content-Type": got.contentType } }) };
  return { records: RecordColumns.of(got.text, got.columns) };
}
