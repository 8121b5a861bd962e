import { z } from "zod";
import { settings } from "@/lib/config";
import { invalidTimeStepMessage, isValidTimeStep } from "@/lib/formats/time-step";
import { boolean, choice, integer, parsePk, pk, text, type Field, type WriteMode } from "@/lib/http/fields";
import type { ErrorCollector } from "@/lib/services/errors";
import { existing } from "@/lib/services/refs";
import { TIMESERIES_TYPES } from "@/lib/services/timeseries-types";

/** The writable fields of groups (api.md §5), time series (§6) and the older shape (§7.1). */

/** A parent id that defaults to the one in the path and may never differ from it. */
export function parentField(): Field<number> {
  return { required: false, parse: (raw) => parsePk(raw), schema: z.int() };
}

/**
 * The check of a parent id sent in the body against the path's: `equal` on create when it
 * differs, `fixed` on a change.
 */
export function parentCheck(field: string, equal: string, fixed: string) {
  return (errors: ErrorCollector, sent: number | undefined, path: number, mode: WriteMode): void => {
    if (sent !== undefined && sent !== path) errors.add(field, mode === "create" ? equal : fixed);
  };
}

export function timeStepField(): Field<string> {
  const base = text({ max: 7, default: "" });
  return {
    ...base,
    parse(raw) {
      const parsed = base.parse(raw);
      if (!parsed.ok) return parsed;
      if (parsed.value !== "" && !isValidTimeStep(parsed.value)) return { ok: false, errors: [invalidTimeStepMessage(parsed.value)] };
      return parsed;
    },
    schema: z.string().max(7).meta({ description: "Empty (irregular) or [N]min|H|h|D|M|Y, e.g. 10min, H, D, 3M" }),
  };
}

export const groupFields = () => ({
  name: text({ max: 200 }),
  hidden: boolean({ default: false }),
  precision: integer({ required: true, min: -10, max: 20 }),
  remarks: text(),
  gentity: parentField(),
  variable: pk(existing("variable"), { required: true }),
  unit_of_measurement: pk(existing("unitOfMeasurement"), { required: true }),
});

export const seriesFields = () => ({
  type: choice(TIMESERIES_TYPES, { required: true, message: (x) => `"${x}" is not a valid time series type` }),
  time_step: timeStepField(),
  timeseries_group: parentField(),
  name: text({ max: 100 }),
  publicly_available: boolean({ default: settings().defaultPubliclyAvailable }),
});

export const olderShapeFields = () => {
  const { gentity, ...group } = groupFields();
  return { ...group, gentity, time_step: timeStepField() };
};
