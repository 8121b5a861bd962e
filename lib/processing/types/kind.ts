/**
 * What a process type is (processing.md §1–§3), as the reference's `autoprocess` app has one
 * class per type: its API fields and their rules, how it is stored, described and named, which
 * series it reads and writes, how a run computes its target, and its bits of the site's form.
 * Each type is one module of this folder; the registry (./index.ts) lists them, and the rest of
 * lib/processing asks the registry instead of switching on the type.
 */
import type { z } from "zod";
import type { FieldErrors } from "@/lib/domain/errors";
import type { FieldSpec } from "@/lib/http/fields";
import type { Locale } from "@/lib/i18n";
import type { StoredRecords } from "@/lib/records";
import type { FormValues } from "@/lib/site/form-state";
import type { IncrementalPlan } from "../numerics/incremental";
import type { RecordBatch } from "../numerics/series";
import type { SeriesInfo } from "../series";

/** Messages by field, as ValidationFailed carries them. */
export type RuleErrors = Record<string, string[]>;

/** Which series a process's target is: its group, its type code, and (aggregations) its time step and name. */
export interface TargetKey {
  groupId: number;
  type: number;
  timeStep?: string;
  name?: string;
}

/** What a run computes with: the resolved series, the station's zone offset (seconds) and the changes it took. */
export interface RunInput {
  source: SeriesInfo;
  target: SeriesInfo;
  zoneOffset: number;
  /** The earliest source timestamp changed (−Infinity: from scratch). */
  dirtyFrom: number;
}

/** What a run computed: where it read and replaces from, the target's records from there, and the stored target read meanwhile. */
export interface Computed {
  plan: IncrementalPlan;
  target: RecordBatch;
  /** The stored target from the plan's targetFrom on, read while the source was (null if that failed). */
  stored: Promise<StoredRecords | null>;
}

/** Words of a process as the group page and the activity log use them. */
export interface DescribeContext {
  /** The group's unit symbol. */
  unit: string;
  /** A process writing into another group: that group as the pages name it. */
  targetGroupName?: string;
  /** The page's language (English when not given: tests and logs). */
  locale?: Locale;
}

/** The add form of a type on the group page. */
export interface AddForm {
  /** Its `<summary>`: "Add an aggregation". */
  summary: string;
  /** Its submit button: "Add aggregation". */
  submit: string;
  /** Its place among the add forms (the page offers checks first, then what reads them). */
  rank: number;
  /** Its initial values besides `type` and `enabled`. */
  initial: FormValues;
}

/** The site's form of a type: reference-style fields that become the API's body (lib/processing/form.ts). */
export interface KindForm<D> {
  /** How the page names the type: "curve interpolation". */
  label: string;
  add: AddForm;
  /** Form keys that are the type's typed fields, not API fields (the API gets them as `toApi` makes them). */
  ownKeys?: RegExp;
  /** The API fields made of the typed ones (JSON text for nested members). */
  toApi(form: FormData): Record<string, string>;
  /** A stored process as the type's form values. */
  values(d: D): FormValues;
  /** The API's messages about typed lines told by line number (only the fields it owns are changed). */
  lineMessages?(errors: FieldErrors, form: FormData, locale: Locale): FieldErrors;
}

export interface ProcessKind<D extends { type: string }> {
  readonly type: D["type"];

  // ---- the API (processing.md §1)
  /** The type's fields, in output order. */
  fields(): FieldSpec;
  /** The type's members of the Process response schema (each optional, described with the type). */
  responseSchema(): Record<string, z.ZodType>;
  /** A definition from the fields sent, over the stored one (PUT and PATCH keep what is not sent). */
  definition(sent: Record<string, unknown>, stored: D | null): D;
  /** The type's fields of a process object, in output order. */
  output(d: D): Record<string, unknown>;
  /** The rules beyond the fields' syntax, by field. */
  errors(d: D): RuleErrors;
  /** The form in which a definition is stored and shown. */
  normalized(d: D): D;
  /** Processes of a group with the same key clash (null: no such rule), and the message of a clash. */
  uniqueKey(d: D): string | null;
  readonly clashMessage?: string;
  /** At most one process of the type per group (its key is the same for all). */
  readonly onePerGroup: boolean;

  // ---- storage (the process row's `config` JSON and `target_group_id`)
  fromStored(config: unknown, targetGroupId: number | null): D;
  toStored(d: D): { config: unknown; targetGroupId: number | null };

  // ---- words
  /** How the activity log names it: "aggregation 1h mean". */
  name(d: D): string;
  /** In words, as the group page lists it (processing.md §5). */
  describe(d: D, context: DescribeContext): string;

  // ---- series (processing.md §2)
  /** Its source: the group's Initial series (created with the process when missing), or its Checked series if it has one, else its Initial. */
  readonly reads: "initial" | "checked, else initial";
  /** The group its target lies in when that is not the process's own group (it must be editable and not close a loop). */
  targetGroupId(d: D): number | null;
  /** Its target series. */
  target(groupId: number, d: D): TargetKey;

  // ---- runs (processing.md §3–§4)
  /** Whether its result depends on the station's display time zone (and the source's time step). */
  readonly usesZone: boolean;
  /** The target's records from where the changes reach, as an incremental run computes them. */
  compute(d: D, run: RunInput): Promise<Computed>;

  // ---- the site
  readonly form: KindForm<D>;
}
