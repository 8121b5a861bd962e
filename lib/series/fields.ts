import { z } from "zod";
import { settings } from "@/lib/config";
import { invalidTimeStepMessage, isValidTimeStep } from "@/lib/formats/time-step";
import type { RequestInput } from "@/lib/http/body";
import { boolean, choice, integer, parentCheck, parentField, pk, text, validatedFields, type Field, type Values, type WriteMode } from "@/lib/http/fields";
import { sent } from "@/lib/http/handlers";
import { existing } from "@/lib/domain/refs";
import type { GroupData, SeriesData } from "@/lib/series/writes";
import { TIMESERIES_TYPES, typeCode } from "@/lib/domain/timeseries-types";

/** The writable fields of groups (api.md §5), time series (§6) and the older shape (§7.1). */

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

export const GENTITY = parentCheck("gentity", "Must equal the station id in the URL.", "It is not allowed to change the gentity of a time series group.");
const GROUP = parentCheck("timeseries_group", "Must equal the time series group id in the URL.", "It is not allowed to change the timeseries_group of a time series.");

export function groupData(v: Values<ReturnType<typeof groupFields>>): Partial<GroupData> {
  return sent({ name: v.name, hidden: v.hidden, precision: v.precision ?? undefined, remarks: v.remarks, variableId: v.variable ?? undefined, unitId: v.unit_of_measurement ?? undefined });
}

/** The group fields of a body or a site form, for a group of station `stationId`. */
export async function readGroupInput(input: RequestInput, mode: WriteMode, stationId: number): Promise<Partial<GroupData>> {
  return groupData(await validatedFields(input, groupFields(), mode, (v, errors) => GENTITY(errors, v.gentity, stationId, mode)));
}

/** The time series fields of a body or a site form, for a series of group `groupId`. */
export async function readSeriesInput(input: RequestInput, mode: WriteMode, groupId: number): Promise<Partial<SeriesData>> {
  const v = await validatedFields(input, seriesFields(), mode, (v, errors) => GROUP(errors, v.timeseries_group, groupId, mode));
  return sent({ type: v.type ? typeCode(v.type) : undefined, timeStep: v.time_step, name: v.name, publiclyAvailable: v.publicly_available });
}
