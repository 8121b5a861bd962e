import { describe, expect, it } from "vitest";
import { validateFields, type FieldSpec } from "@/lib/http/fields";
import { ErrorCollector } from "@/lib/domain/errors";
import { commonProcessFields } from "@/lib/processing/fields";
import { processAddForms, processInput, processValues } from "@/lib/processing/form";
import { ProcessSchema } from "@/lib/processing/schemas";
import type { ProcessRow } from "@/lib/processing/state";
import { kindNamed, kindOf, PROCESS_KINDS, PROCESS_TYPES, type ProcessConfig, type ProcessType } from "@/lib/processing/types";

/**
 * The registry of process types (issue 37, item 5): one module per type, as the reference has one
 * class per type, and everything else asks it. Each module's parts must agree with each other:
 * its API fields, its output and its response schema; how it is stored; its site form.
 */
const EXAMPLES: { [T in ProcessType]: Extract<ProcessConfig, { type: T }> } = {
  checks: {
    type: "checks",
    config: {
      range_check: { lower_bound: -10, upper_bound: 50, soft_lower_bound: null, soft_upper_bound: 45 },
      rate_of_change_check: { symmetric: false, remove_failing_values: true, thresholds: [{ delta_t: "10min", allowed_diff: 7.3 }, { delta_t: "1h", allowed_diff: -15 }] },
    },
  },
  curve_interpolation: {
    type: "curve_interpolation",
    targetGroupId: 7,
    config: { periods: [{ start_date: "2020-01-01", end_date: "2020-12-31", points: [[1.5, 2.25], [0, 0], [3, 40]] }] },
  },
  aggregation: { type: "aggregation", config: { target_time_step: "1D", method: "sum", max_missing: 6, resulting_timestamp_offset: "1min" } },
};

/** The type's fields without their database checks (a target group's existence). */
function withoutChecks(spec: FieldSpec): FieldSpec {
  return Object.fromEntries(Object.entries(spec).map(([name, field]) => [name, { ...field, check: undefined }]));
}

function row(definition: ProcessConfig): ProcessRow {
  const now = new Date(0);
  return { id: 1, groupId: 3, enabled: true, definition, created: now, lastModified: now, dirtyFrom: null, runningFrom: null, inputs: "" };
}

describe("the process types' registry", () => {
  it("has one module per type of the specification, in its order, and they are the API's and the response's choices", () => {
    expect(PROCESS_TYPES).toEqual(["checks", "curve_interpolation", "aggregation"]);
    expect(commonProcessFields().type.parse("aggregation")).toEqual({ ok: true, value: "aggregation" });
    expect(commonProcessFields().type.parse("regularization")).toEqual({ ok: false, errors: ['"regularization" is not a valid choice.'] });
    expect(ProcessSchema.shape.type.options).toEqual(PROCESS_TYPES);
  });

  for (const kind of PROCESS_KINDS) {
    const example = EXAMPLES[kind.type as ProcessType] as ProcessConfig;

    describe(kind.type, () => {
      it("is the module of its definitions", () => {
        expect(kindOf(example)).toBe(kind);
        expect(kindNamed(kind.type)).toBe(kind);
      });

      it("names the same members, in the same order, in its fields, its output and its response schema", () => {
        const names = Object.keys(kind.fields());
        expect(Object.keys(kind.output(example))).toEqual(names);
        expect(Object.keys(kind.responseSchema())).toEqual(names);
        for (const name of names) expect(Object.keys(ProcessSchema.shape)).toContain(name);
      });

      it("follows its own rules, and reads back what it stores", () => {
        expect(kind.errors(example)).toEqual({});
        const stored = kind.toStored(example);
        expect(kind.fromStored(JSON.parse(JSON.stringify(stored.config)), stored.targetGroupId)).toEqual(example);
        expect(kind.normalized(kind.normalized(example))).toEqual(kind.normalized(example));
      });

      it("reads the API's output back as the same definition, over nothing stored and over a stored one", async () => {
        const output = kind.output(example);
        expect(kind.definition(output, null)).toEqual(example);
        expect(kind.definition({}, example)).toEqual(example);
      });

      it("sends its site form's values to the API as the same definition", async () => {
        const form = new FormData();
        for (const [key, value] of Object.entries(processValues(row(example)))) form.append(key, String(value));
        const errors = new ErrorCollector();
        const sent = await validateFields(processInput(form), withoutChecks(kind.fields()), "create", errors);
        expect(errors.errors).toEqual({});
        expect(kind.normalized(kind.definition(sent, null))).toEqual(kind.normalized(example));
      });

      it("is offered on the group page once, or not again when the group may have only one", () => {
        const offered = processAddForms([]).filter((f) => f.type === kind.type);
        expect(offered).toHaveLength(1);
        expect(offered[0].initial).toMatchObject({ type: kind.type, enabled: "true" });
        expect(processAddForms([example]).some((f) => f.type === kind.type)).toBe(!kind.onePerGroup);
      });
    });
  }

  it("offers the add forms in the page's order, with the page's words", () => {
    expect(processAddForms([]).map((f) => [f.label, f.summary, f.submit])).toEqual([
      ["New checks process", "Add checks", "Add checks"],
      ["New aggregation process", "Add an aggregation", "Add aggregation"],
      ["New curve interpolation process", "Add a curve interpolation", "Add curve interpolation"],
    ]);
  });
});
