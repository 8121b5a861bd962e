/**
 * The registry of process types (processing.md §1): one module each, in the order the
 * specification lists them (the API's `type` choices and the OpenAPI document follow it). A new
 * type is a module implementing ProcessKind and one line here and in ProcessConfig.
 */
import { aggregation, type AggregationDefinition } from "./aggregation";
import { checks, type ChecksDefinition } from "./checks";
import { curveInterpolation, type CurveDefinition } from "./curve-interpolation";
import type { ProcessKind } from "./kind";

/** A process's type and configuration (a curve interpolation's target group beside it). */
export type ProcessConfig = ChecksDefinition | CurveDefinition | AggregationDefinition;
export type ProcessType = ProcessConfig["type"];

const KINDS: { [T in ProcessType]: ProcessKind<Extract<ProcessConfig, { type: T }>> } = {
  checks,
  curve_interpolation: curveInterpolation,
  aggregation,
};

/** Every type, in the specification's order. */
export const PROCESS_KINDS: readonly ProcessKind<ProcessConfig>[] = Object.values(KINDS) as ProcessKind<ProcessConfig>[];
export const PROCESS_TYPES: readonly ProcessType[] = PROCESS_KINDS.map((k) => k.type);

/** The type of a definition, typed for it. */
export function kindOf<D extends ProcessConfig>(d: D): ProcessKind<D> {
  return KINDS[d.type] as unknown as ProcessKind<D>;
}

/** The type of a stored or requested process by its name. */
export function kindNamed(type: ProcessType): ProcessKind<ProcessConfig> {
  return KINDS[type] as unknown as ProcessKind<ProcessConfig>;
}

/** The types whose source is the group's Initial series (the others read Checked, else Initial). */
export const INITIAL_READERS: readonly ProcessType[] = PROCESS_KINDS.filter((k) => k.reads === "initial").map((k) => k.type);
/** The types whose result depends on the station's display time zone. */
export const ZONE_USERS: readonly ProcessType[] = PROCESS_KINDS.filter((k) => k.usesZone).map((k) => k.type);

export type { ProcessKind } from "./kind";
