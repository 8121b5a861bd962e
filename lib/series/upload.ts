import type { Actor } from "@/lib/auth/permissions";
import type { TimeZone } from "@/lib/formats/timezone";
import { appendErrors, dryRunSummary, insertErrors, parseUpload } from "@/lib/formats/upload";
import { notifyJobsQueued } from "@/lib/jobs/queue";
import { records } from "@/lib/records";
import { countUpload } from "@/lib/observability/metrics.mjs";
import { contentsText } from "@/lib/stations";
import { ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { writableSeries, type SeriesContext, type SeriesPath } from "@/lib/series/context";
import { applyCorrection } from "@/lib/series/correct";
import { correctionStatements, newCorrectionToken } from "@/lib/series/corrections";

/**
 * Appending, inserting or replacing records (api.md §8.3, formats.md §6, corrections.md §1) by
 * an editor of the series' station: the parse, and the storage checks inside the write's
 * transaction. All or nothing; the upload is recorded as a correction, and the runs of the
 * processes that read the series are queued, in the same transaction (processing.md §4); the
 * upload does not wait for them.
 */
export type UploadMode = "append" | "insert" | "replace";

export interface UploadValues {
  /** Record lines (formats.md §6.1). */
  text: string;
  /** The zone of the timestamps. */
  zone: TimeZone;
  mode: UploadMode;
  /** Check and summarize, store nothing. */
  dryRun: boolean;
  /** The correction's comment (corrections.md §1). */
  comment?: string;
}

type DryRunSummary = ReturnType<typeof dryRunSummary> & { replaced?: number };

export type UploadOutcome = { stored: number } | { dryRun: DryRunSummary };

export async function uploadRecords(actor: Actor, path: SeriesPath, given: Given<UploadValues, SeriesContext>): Promise<UploadOutcome> {
  const s = await writableSeries(actor, path);
  const { text, zone, mode, dryRun, comment = "" } = await valuesOf(given, s);
  const parsed = parseUpload(text, zone);
  if (!parsed.ok) throw countUpload("rejected", new ValidationFailed({ timeseries_records: parsed.errors }));
  const summary = dryRunSummary(parsed);
  const n = parsed.timestamps.length;
  const uploaded = contentsText({ records: summary.count });

  if (mode === "replace") {
    // The uploaded records replace every stored record from the first to the last uploaded timestamp.
    if (n === 0) return countUpload(dryRun ? "dry_run" : "stored", dryRun ? { dryRun: { ...summary, replaced: 0 } } : { stored: 0 });
    let replaced = 0;
    await applyCorrection(actor, s, parsed.timestamps[0], parsed.timestamps[n - 1], (current) => {
      replaced = current.timestamps.length;
      const kept = new Set(parsed.timestamps);
      return { remove: current.timestamps.filter((t) => !kept.has(t)), upsert: parsed };
    }, () => ({ kind: "replace", detail: `${uploaded} uploaded`, comment, did: `Replaced ${contentsText({ records: replaced }) || "no records"} with ${uploaded}` }), dryRun);
    return countUpload(dryRun ? "dry_run" : "stored", dryRun ? { dryRun: { ...summary, replaced } } : { stored: n });
  }

  // An append or an insert changes nothing that was stored: what it wrote is the upload itself.
  const token = newCorrectionToken();
  const result = await records().write(s.id, parsed, {
    mode,
    dryRun,
    validate: ({ lastStored, existing }) => (mode === "append" ? appendErrors(parsed, lastStored) : insertErrors(parsed, existing)),
    also: n === 0 || dryRun ? [] : correctionStatements(token, actor, s, { kind: "upload", detail: mode, comment, did: `Uploaded ${uploaded}`, rangeNote: mode }, {
      before: { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] }, written: parsed, first: parsed.timestamps[0], last: parsed.timestamps[n - 1],
    }),
  });
  if (!result.ok) throw countUpload("rejected", new ValidationFailed({ timeseries_records: result.errors }));
  if (!dryRun && result.stored > 0) notifyJobsQueued();
  return countUpload(dryRun ? "dry_run" : "stored", dryRun ? { dryRun: summary } : { stored: result.stored });
}
