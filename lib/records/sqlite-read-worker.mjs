// The records store's read-ahead worker (lib/records/sqlite-read-ahead.ts): reads chunks on its
// own read-only connection, so that reading the next chunk overlaps writing out the current one
// and the main thread's event loop stays free during long downloads.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { chunkReader } from "./sqlite-chunks.mjs";

const conn = new Database(workerData.path, { readonly: true, fileMustExist: true, timeout: 15_000 });
// Long reads: pages through a memory map of the file (the OS's page cache), not copied into a
// cache of this connection's own one by one.
conn.pragma("mmap_size = 1073741824");
const readChunk = chunkReader(conn);

parentPort.on("message", ({ id, seriesId, from, to, limit }) => {
  try {
    const chunk = readChunk(seriesId, from, to, limit);
    parentPort.postMessage({ id, chunk }, [chunk.timestamps.buffer, chunk.values.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
