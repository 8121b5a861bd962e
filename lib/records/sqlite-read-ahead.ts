import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { SparseChunk } from "@/lib/records/sqlite-chunks.mjs";

interface Waiting {
  resolve(chunk: SparseChunk): void;
  reject(error: Error): void;
}

interface Reader {
  readonly worker: Worker;
  readonly waiting: Map<number, Waiting>;
}

/**
 * A worker thread that reads record chunks of one SQLite database (lib/records/sqlite-read-worker.mjs),
 * started on first use. Requests are answered in order. The worker keeps the process alive only
 * while a request waits; if it dies, its waiting requests fail and the next request starts another.
 */
export class SqliteReadAhead {
  private reader: Reader | null = null;
  private lastId = 0;

  constructor(private readonly path: string) {}

  read(seriesId: number, from: number, to: number, limit: number): Promise<SparseChunk> {
    const { worker, waiting } = (this.reader ??= this.start());
    const id = ++this.lastId;
    if (waiting.size === 0) worker.ref();
    return new Promise<SparseChunk>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, seriesId, from, to, limit });
    });
  }

  close(): void {
    const reader = this.reader;
    this.reader = null;
    void reader?.worker.terminate();
  }

  private start(): Reader {
    // Loaded from the source tree at run time (the server runs in the project directory).
    const worker = new Worker(join(process.cwd(), "lib", "records", "sqlite-read-worker.mjs"), { workerData: { path: this.path } });
    const reader: Reader = { worker, waiting: new Map() };
    const { waiting } = reader;
    worker.unref();
    worker.on("message", ({ id, chunk, error }: { id: number; chunk?: SparseChunk; error?: string }) => {
      const w = waiting.get(id);
      waiting.delete(id);
      if (waiting.size === 0) worker.unref();
      if (error !== undefined) w?.reject(new Error(`records read failed: ${error}`));
      else w?.resolve(chunk!);
    });
    const fail = (error: Error) => {
      if (this.reader === reader) this.reader = null;
      for (const w of waiting.values()) w.reject(error);
      waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the records reader stopped (exit code ${code})`)));
    return reader;
  }
}
