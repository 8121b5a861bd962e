import { isUploadedFile, type RequestInput } from "@/lib/http/body";
import { z } from "zod";
import { boolean, choice, MSG, text } from "@/lib/http/fields";
import { readZone } from "@/lib/series/data-params";
import { ErrorCollector } from "@/lib/domain/errors";
import type { SeriesContext } from "@/lib/series/context";
import type { UploadMode, UploadValues } from "@/lib/series/upload";
import { commentField } from "@/lib/series/correction-fields";

/**
 * The body of a records upload (api.md §8.3): `timeseries_records` (text, or a file), `timezone`
 * (default the station's display zone), `mode` and `dry_run`. The legacy tsdata append reads
 * only the first two (always an append, never a dry run; legacy.md §5). The OpenAPI document
 * gives these fields; `mode`, `dry_run` and `comment` (the correction's, corrections.md §1) are
 * read with them.
 */
export const uploadFields = () => ({
  timeseries_records: { ...text({ required: true, trim: false }), schema: z.string().meta({ description: "Record lines or a whole HTS file; in multipart also a file part" }) },
  timezone: text(),
  mode: { ...choice(["append", "insert", "replace"] as const), schema: z.enum(["append", "insert", "replace"]).meta({ description: "append (default), insert, or replace: the records replace every stored record from the first to the last uploaded timestamp" }) },
  dry_run: boolean(),
  comment: commentField(),
});

async function recordsText(value: unknown, errors: ErrorCollector): Promise<string | null> {
  if (value === undefined) errors.add("timeseries_records", MSG.required);
  else if (value === null) errors.add("timeseries_records", MSG.null);
  else if (typeof value === "string") return value;
  else if (isUploadedFile(value)) return Buffer.from(await value.bytes()).toString("utf8");
  else errors.add("timeseries_records", MSG.string);
  return null;
}

export async function readUpload(input: RequestInput, s: SeriesContext, options: { legacy?: boolean } = {}): Promise<UploadValues> {
  const errors = new ErrorCollector();
  const text = await recordsText(input.get("timeseries_records"), errors);
  const timezone = input.get("timezone");
  const zone = readZone(typeof timezone === "string" ? timezone.trim() : timezone == null ? null : String(timezone), s, errors);
  let mode: UploadMode = "append";
  let dryRun = false;
  let comment = "";
  if (!options.legacy) {
    const fields = uploadFields();
    if (input.has("mode")) {
      const parsed = fields.mode.parse(input.get("mode"));
      if (parsed.ok) mode = parsed.value;
      else errors.add("mode", parsed.errors);
    }
    if (input.has("dry_run")) {
      const parsed = fields.dry_run.parse(input.get("dry_run"));
      if (parsed.ok) dryRun = parsed.value;
      else errors.add("dry_run", parsed.errors);
    }
    if (input.has("comment")) {
      const parsed = fields.comment.parse(input.get("comment"));
      if (parsed.ok) comment = parsed.value;
      else errors.add("comment", parsed.errors);
    }
  }
  errors.throwIfAny();
  return { text: text!, zone, mode, dryRun, comment };
}
