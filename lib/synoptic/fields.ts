import { z } from "zod";
import { emailListField } from "@/lib/accounts";
import type { RequestInput } from "@/lib/http/body";
import {
  boolean, choice, integer, number, parsePk, specSchema, text, validatedFields, type Field, type Parsed, type WriteMode,
} from "@/lib/http/fields";
import { listOf, nestedField, objectOf, sharedSpec } from "@/lib/http/nested-fields";
import { DISPLAY_TIMEZONES } from "@/lib/stations";
import { SynopticStationsSchema } from "@/lib/http/openapi-schemas";
import {
  MAX_WARNING_EMAILS, seriesErrors, SLUG, stationsErrors, SYNOPTIC_RULES, type SynopticGroupValues, type SynopticRateOfChange, type SynopticSeriesDefinition,
  type SynopticStationDefinition,
} from "@/lib/synoptic/config";

/**
 * The fields of `synopticgroups/` (synoptic.md §1). `stations` is a JSON list (JSON text in a
 * form body); `early_warning_emails` a JSON list, or the key repeated in a form body.
 */
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(...errors: string[]): Parsed<T> => ({ ok: false, errors });

/** A reference inside a nested object; its existence is checked by the service. */
const reference = (): Field<number> => ({ required: true, parse: parsePk, schema: z.int() });

const thresholdSpec = sharedSpec(() => ({
  delta_t: text({ required: true, blank: false }),
  allowed_diff: number({ required: true }),
}));

const rateOfChangeSpec = sharedSpec(() => ({
  symmetric: boolean({ default: false }),
  thresholds: {
    required: true,
    parse: (raw: unknown) => listOf(raw, (v, at) => objectOf(v, thresholdSpec(), at)),
    schema: z.array(specSchema(thresholdSpec())),
  } as Field<SynopticRateOfChange["thresholds"]>,
}));

const seriesSpec = sharedSpec(() => ({
  timeseries_group: reference(),
  title: text({ max: 50 }),
  subtitle: text({ max: 50 }),
  low_limit: number({ nullable: true, default: null }),
  high_limit: number({ nullable: true, default: null }),
  default_chart_min: number({ nullable: true, default: null }),
  default_chart_max: number({ nullable: true, default: null }),
  rate_of_change: {
    required: false,
    default: () => null,
    parse: (raw: unknown) => (raw === null ? ok(null) : objectOf(raw, rateOfChangeSpec())),
    schema: specSchema(rateOfChangeSpec()).nullable(),
  } as Field<SynopticRateOfChange | null>,
}));

const stationSpec = sharedSpec(() => ({
  station: reference(),
  timeseries_groups: {
    required: false,
    default: () => [],
    parse: (raw: unknown) => listOf(raw, (v, at) => objectOf(v, seriesSpec(), at) as Parsed<SynopticSeriesDefinition>),
    schema: z.array(specSchema(seriesSpec())),
  } as Field<SynopticSeriesDefinition[]>,
}));

/**
 * The rules of each series that parses, in a list that does not parse as a whole: a body refused
 * for one member still hears about the limits of the others at once (stationsErrors checks
 * them when everything parses).
 */
function rulesOfParsedSeries(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((station, i) => {
    const groups = typeof station === "object" && station !== null ? (station as Record<string, unknown>).timeseries_groups : undefined;
    if (!Array.isArray(groups)) return [];
    return groups.flatMap((group, j) => {
      const parsed = objectOf(group, seriesSpec()) as Parsed<SynopticSeriesDefinition>;
      return parsed.ok ? seriesErrors(parsed.value, `[${i}].timeseries_groups[${j}]`) : [];
    });
  });
}

function stationsField(): Field<SynopticStationDefinition[]> {
  return nestedField("stations", (v) => {
    const parsed = listOf(v, (item, at) => objectOf(item, stationSpec(), at) as Parsed<SynopticStationDefinition>);
    return parsed.ok ? parsed : fail(...parsed.errors, ...rulesOfParsedSeries(v));
  }, stationsErrors, z.array(specSchema(stationSpec())).meta({ description: SynopticStationsSchema.description }), { default: () => [] });
}

function slugField(): Field<string> {
  const base = text({ required: true, blank: false, max: 50 });
  return {
    ...base,
    parse(raw) {
      const parsed = base.parse(raw);
      if (!parsed.ok) return parsed;
      return SLUG.test(parsed.value) ? parsed : fail(SYNOPTIC_RULES.slug);
    },
    schema: z.string().max(50).regex(SLUG),
  };
}

export const synopticGroupFields = () => ({
  name: text({ required: true, blank: false, max: 50 }),
  slug: slugField(),
  display_timezone: choice(DISPLAY_TIMEZONES, { default: "Etc/GMT" }),
  fresh_time_limit: integer({ required: true, min: 1 }),
  early_warning_emails: emailListField({ name: "early_warning_emails", max: MAX_WARNING_EMAILS, tooMany: SYNOPTIC_RULES.tooManyEmails, invalid: SYNOPTIC_RULES.email }),
  stations: stationsField(),
});

/** A synoptic group's values from a request body: all of them on create, those sent on PUT and PATCH. */
export async function readSynopticGroup(input: RequestInput, mode: WriteMode): Promise<Partial<SynopticGroupValues>> {
  const v = await validatedFields(input, synopticGroupFields(), mode);
  return Object.fromEntries(Object.entries(v).filter(([, value]) => value !== undefined)) as Partial<SynopticGroupValues>;
}
