import type { RecordBatch } from "@/lib/records/types";

/** Records of consecutive batches (each later than the one before) as one batch. */
export function concatBatches(batches: readonly RecordBatch[]): RecordBatch {
  if (batches.length === 1) return batches[0];
  const n = batches.reduce((sum, b) => sum + b.timestamps.length, 0);
  const timestamps = new Float64Array(n);
  const values = new Float64Array(n);
  const flags: string[] = [];
  let at = 0;
  for (const b of batches) {
    timestamps.set(b.timestamps, at);
    values.set(b.values, at);
    for (const f of b.flags) flags.push(f);
    at += b.timestamps.length;
  }
  return { timestamps, values, flags };
}
