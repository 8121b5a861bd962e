import { isUploadedFile, type RequestInput } from "@/lib/http/body";
import { ErrorCollector, badRequest } from "@/lib/http/errors";
import { boolean, choice, MSG } from "@/lib/http/fields";
import { appendErrors, dryRunSummary, insertErrors, parseUpload } from "@/lib/formats/upload";
import { records } from "@/lib/records";
import { countUpload } from "@/lib/observability/metrics.mjs";
import { readZone } from "@/lib/services/data";
import type { SeriesContext } from "@/lib/services/series-context";

/**
 * Appending records (api.md §8.3, formats.md §6): the fields, the parse, and the storage checks
 * inside the write's transaction. All or nothing. The legacy tsdata append uses it with
 * `legacy` (always append, no dry run).
 */
export type UploadOutcome = { stored: number } | { dryRun: ReturnType<typeof dryRunSummary> };

async function recordsText(value: unknown, errors: ErrorCollector): Promise<string | null> {
  if (value === undefined) errors.add("timeseries_records", MSG.required);
  else if (value === null) errors.add("timeseries_records", MSG.null);
  else if (typeof value === "string") return value;
  else if (isUploadedFile(value)) return Buffer.from(await value.bytes()).toString("utf8");
  else errors.add("timeseries_records", MSG.string);
  return null;
}

export async function uploadRecords(s: SeriesContext, input: RequestInput, options: { legacy?: boolean } = {}): Promise<UploadOutcome> {
  const errors = new ErrorCollector();
  const text = await recordsText(input.get("timeseries_records"), errors);
  const timezone = input.get("timezone");
  const zone = readZone(typeof timezone === "string" ? timezone.trim() : timezone == null ? null : String(timezone), s, errors);
  let mode: "append" | "insert" = "append";
  let dryRun = false;
  if (!options.legacy) {
    if (input.has("mode")) {
      const parsed = choice(["append", "insert"] as const).parse(input.get("mode"));
      if (parsed.ok) mode = parsed.value;
      else errors.add("mode", parsed.errors);
    }
    if (input.has("dry_run")) {
      const parsed = boolean().parse(input.get("dry_run"));
      if (parsed.ok) dryRun = parsed.value;
      else errors.add("dry_run", parsed.errors);
    }
  }
  errors.throwIfAny();

  const parsed = parseUpload(text!, zone);
  if (!parsed.ok) throw countUpload("rejected", badRequest({ timeseries_records: parsed.errors }));
  const result = await records().write(s.id, parsed, {
    mode,
    dryRun,
    validate: ({ lastStored, existing }) => (mode === "append" ? appendErrors(parsed, lastStored) : insertErrors(parsed, existing)),
  });
  if (!result.ok) throw countUpload("rejected", badRequest({ timeseries_records: result.errors }));
  return countUpload(dryRun ? "dry_run" : "stored", dryRun ? { dryRun: dryRunSummary(parsed) } : { stored: result.stored });
}
