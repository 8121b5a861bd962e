/**
 * The response shapes of processes and their runs (processing.md §1), as zod schemas: the
 * OpenAPI document is generated from them, and the tests check real responses against them.
 * Each type's members come from its module.
 */
import { z } from "zod";
import { PROCESS_KINDS, PROCESS_TYPES, type ProcessType } from "./types";

const id = z.int().positive();

export const RunSchema = z.object({
  id,
  status: z.enum(["queued", "running", "succeeded", "failed"]),
  queued_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  from: z.string().nullable().meta({ description: "Where the target was replaced from (UTC; for a run to come, what is pending); null: from scratch" }),
  records_written: z.int().min(0),
  error: z.string().nullable().meta({ description: "Shown to editors of the station" }),
}).meta({ id: "ProcessRun" });

/** "a, b or c" */
const either = (words: string[]) => (words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`);

export const ProcessSchema = z.object({
  id,
  type: z.enum(PROCESS_TYPES as [ProcessType, ...ProcessType[]]),
  timeseries_group: id,
  enabled: z.boolean(),
  source_timeseries: id.nullable(),
  target_timeseries: id.nullable(),
  last_run: RunSchema.nullable(),
  ...Object.assign({}, ...PROCESS_KINDS.map((k) => k.responseSchema())) as Record<string, z.ZodType>,
}).meta({
  id: "Process",
  description: `An automatic process of a time series group (${either(PROCESS_KINDS.map((k) => k.form.label))}); the fields after last_run are those of its type`,
});
