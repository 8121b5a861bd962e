import type { Actor } from "@/lib/auth/permissions";
import type { TimeZone } from "@/lib/formats/timezone";
import { appendCheck, dryRunSummary, insertCheck, parseUpload } from "@/lib/formats/upload";
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

/**
 * An upload the storage checks refused (formats.md §6.4: append after the last stored record,
 * insert no record that is stored): the first 10 messages, as ValidationFailed gives them, and
 * how many lines were refused in all (the upload page says "the first 10 of 144").
 */
export class RecordsRefused extends ValidationFailed {
  constructor(messages: string[], readonly refused: number) {
    super({ timeseries_records: messages });
  }
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
  let refused = 0;
  const result = await records().write(s.id, parsed, {
    mode,
    dryRun,
    validate: ({ lastStored, existing }) => {
      const check = mode === "append" ? appendCheck(parsed, lastStored) : insertCheck(parsed, existing);
      refused = check.refused;
      return check.messages;
    },
    also: n === 0 || dryRun ? [] : correctionStatements(token, actor, s, { kind: "upload", detail: mode, comment, did: `Uploaded ${uploaded}`, rangeNote: mode }, {
      before: { timestamps: new Float64Array(0), values: new Float64Array(0), flags: [] }, written: parsed, first: parsed.timestamps[0], last: parsed.timestamps[n - 1],
    }),
  });
  if (!result.ok) throw countUpload("rejected", new RecordsRefused(result.errors, refused));
  return countUpload(dryRun ? "dry_run" : "stored", dryRun ? { dryRun: summary } : { stored: result.stored });
}
