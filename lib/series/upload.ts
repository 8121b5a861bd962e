import type { Actor } from "@/lib/auth/permissions";
import type { TimeZone } from "@/lib/formats/timezone";
import { appendCheck, dryRunSummary, insertCheck, parseUpload } from "@/lib/formats/upload";
import { changeStatements } from "@/lib/jobs/registry";
import { records } from "@/lib/records";
import { countUpload } from "@/lib/observability/metrics.mjs";
import { activitySql, named } from "@/lib/domain/activity-log";
import { contentsText } from "@/lib/stations";
import { ValidationFailed } from "@/lib/domain/errors";
import { valuesOf, type Given } from "@/lib/domain/given";
import { formatDateTime, offsetLabel, zoneOffsetMinutes } from "@/lib/site/time";
import { writableSeries, type SeriesContext, type SeriesPath } from "@/lib/series/context";

/**
 * Appending or inserting records (api.md §8.3, formats.md §6) by an editor of the series'
 * station: the parse, and the storage checks inside the write's transaction. All or nothing;
 * the runs of the processes that read the series are queued in the same transaction
 * (processing.md §4), and the upload does not wait for them.
 */
export interface UploadValues {
  /** Record lines (formats.md §6.1). */
  text: string;
  /** The zone of the timestamps. */
  zone: TimeZone;
  mode: "append" | "insert";
  /** Check and summarize, store nothing. */
  dryRun: boolean;
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

export type UploadOutcome = { stored: number } | { dryRun: ReturnType<typeof dryRunSummary> };

/**
 * "2025-03-01 00:00 to 2025-03-01 00:10 UTC+02:00": the records' range as the station's pages
 * show its data (its display zone), for the activity that its editors read beside those pages.
 */
function stationRange(timestamps: ArrayLike<number>, zone: string): string {
  const offset = zoneOffsetMinutes(zone) ?? 0;
  if (timestamps.length === 0) return "no records";
  return `${formatDateTime(timestamps[0], offset)} to ${formatDateTime(timestamps[timestamps.length - 1], offset)} ${offsetLabel(offset)}`;
}

export async function uploadRecords(actor: Actor, path: SeriesPath, given: Given<UploadValues, SeriesContext>): Promise<UploadOutcome> {
  const s = await writableSeries(actor, path);
  const { text, zone, mode, dryRun } = await valuesOf(given, s);
  const parsed = parseUpload(text, zone);
  if (!parsed.ok) throw countUpload("rejected", new ValidationFailed({ timeseries_records: parsed.errors }));
  const summary = dryRunSummary(parsed);
  let refused = 0;
  const result = await records().write(s.id, parsed, {
    mode,
    dryRun,
    validate: ({ lastStored, existing }) => {
      const check = mode === "append" ? appendCheck(parsed, lastStored) : insertCheck(parsed, existing);
      refused = check.refused;
      return check.messages;
    },
    also: [
      ...(parsed.timestamps.length ? changeStatements({ kind: "series-written", seriesId: s.id, first: parsed.timestamps[0] }) : []),
      activitySql(actor, {
        action: "upload", objectType: "timeseries", objectId: s.id, stationId: s.station.id,
        summary: `Uploaded ${contentsText({ records: summary.count })} (${stationRange(parsed.timestamps, s.station.displayTimezone)}, ${mode}) to time series #${s.id} `
          + `of time series group ${named(s.group.name, s.group.id)}`,
      }),
    ],
  });
  if (!result.ok) throw countUpload("rejected", new RecordsRefused(result.errors, refused));
  return countUpload(dryRun ? "dry_run" : "stored", dryRun ? { dryRun: summary } : { stored: result.stored });
}
