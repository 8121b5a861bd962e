import { z } from "zod";
import type { RequestInput } from "@/lib/http/body";
import { INVALID_JSON } from "@/lib/http/nested-fields";
import { boolean, choice, specSchema, validateFields, type FieldSpec, type WriteMode } from "@/lib/http/fields";
import { ErrorCollector, ValidationFailed } from "@/lib/domain/errors";
import type { ProcessRow } from "@/lib/processing/state";
import { PROCESS_MESSAGES, type ProcessValues, type RunRequest } from "@/lib/processing/processes";
import { kindNamed, PROCESS_KINDS, PROCESS_TYPES, type ProcessType } from "@/lib/processing/types";

/**
 * The fields of processes (processing.md §1) and of a run request: the common ones here, each
 * type's in its module (lib/processing/types/). Nested objects and lists are JSON values in a
 * JSON body, and JSON text in a form body (or in a JSON string). Their messages name the member
 * they concern: "lower_bound: This field is required.", "thresholds[1].delta_t: …" (indexes
 * from 0).
 */
export { INVALID_JSON };

export const commonProcessFields = () => ({
  type: choice(PROCESS_TYPES, { required: true }),
  enabled: boolean({ default: true }),
});

/** The fields of each type, in output order. */
export const TYPE_FIELDS = Object.fromEntries(PROCESS_KINDS.map((k) => [k.type, () => k.fields()])) as Record<ProcessType, () => FieldSpec>;

/** Every field of every type, for the OpenAPI document (PATCH: any of them). */
export function allProcessFields(): FieldSpec {
  return Object.assign(commonProcessFields(), ...PROCESS_KINDS.map((k) => k.fields()));
}

/** A body that creates or replaces a process, for the OpenAPI document: the fields of its type, its required ones required. */
export function processBodySchema(): z.ZodType {
  const ofType = (type: ProcessType) => specSchema({ ...commonProcessFields(), ...TYPE_FIELDS[type]() }).extend({ type: z.literal(type) });
  return z.union(PROCESS_TYPES.map(ofType));
}

/**
 * A process's values from a request body: on create every field of its type (required ones
 * sent, others their defaults); on PUT and PATCH the stored values with the fields sent. The
 * type cannot change (PUT must repeat it).
 */
export async function readProcess(input: RequestInput, mode: WriteMode, stored?: ProcessRow): Promise<ProcessValues> {
  const errors = new ErrorCollector();
  const common = await validateFields(input, commonProcessFields(), mode === "create" ? "create" : mode, errors);
  let type: ProcessType | undefined = common.type;
  if (stored) {
    if (type !== undefined && type !== stored.definition.type) errors.add("type", PROCESS_MESSAGES.typeFixed);
    type = stored.definition.type;
  }
  let sent: Record<string, unknown> = {};
  if (type) sent = await validateFields(input, TYPE_FIELDS[type](), mode, errors);
  errors.throwIfAny();
  return {
    enabled: common.enabled ?? stored?.enabled ?? true,
    definition: kindNamed(type!).definition(sent, stored?.definition ?? null),
  };
}

export const runFields = () => ({
  from_scratch: boolean({ default: false }),
  wait: boolean({ default: false }),
});

export async function readRunRequest(input: RequestInput): Promise<RunRequest> {
  const errors = new ErrorCollector();
  const v = await validateFields(input, runFields(), "create", errors);
  if (errors.has()) throw new ValidationFailed(errors.errors);
  return { fromScratch: v.from_scratch ?? false, wait: v.wait ?? false };
}
