/**
 * A synoptic group's definition (synoptic.md §1) as typed values in the API's snake_case, and
 * the rules it must follow beyond its syntax, each message naming the member it concerns
 * ("stations[0].timeseries_groups[1].high_limit: …"), so that the API, the site's forms and
 * scripts report the same words.
 */
import type { RateOfChangeThreshold } from "@/lib/processing";
import { rateOfChangeErrors as checksRateOfChangeErrors } from "@/lib/processing";

export interface SynopticRateOfChange {
  symmetric: boolean;
  thresholds: RateOfChangeThreshold[];
}

/** A time series group shown at a station, with its limits and chart range. */
export interface SynopticSeriesDefinition {
  timeseries_group: number;
  title: string;
  subtitle: string;
  low_limit: number | null;
  high_limit: number | null;
  default_chart_min: number | null;
  default_chart_max: number | null;
  rate_of_change: SynopticRateOfChange | null;
}

export interface SynopticStationDefinition {
  station: number;
  timeseries_groups: SynopticSeriesDefinition[];
}

export interface SynopticGroupValues {
  name: string;
  slug: string;
  display_timezone: string;
  /** Seconds. */
  fresh_time_limit: number;
  early_warning_emails: string[];
  stations: SynopticStationDefinition[];
}

/** The addresses a synoptic group's warnings go to, at most (each warning is one e-mail to all of them). */
export const MAX_WARNING_EMAILS = 20;

export const SYNOPTIC_RULES = {
  slug: 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.',
  slugTaken: "A synoptic group with this slug already exists.",
  limitsOrder: "low_limit must not be greater than high_limit.",
  chartOrder: "default_chart_min must be less than default_chart_max.",
  repeatedStation: "This station is already in the synoptic group.",
  repeatedGroup: "This time series group is already shown at this station.",
  notOfStation: (gid: number, sid: number) => `Time series group ${gid} does not belong to station ${sid}.`,
  privateData: (gid: number) => `You may not read the data of time series group ${gid}, so you may not show it.`,
  email: "Enter a valid email address.",
  tooManyEmails: `Ensure this field has no more than ${MAX_WARNING_EMAILS} elements.`,
} as const;

export const SLUG = /^[A-Za-z0-9_-]+$/;

/** The rules of a rate-of-change definition: those of the checks' (processing.md §1), relative to it ("thresholds[1].delta_t: …"). */
export function rateOfChangeErrors(r: SynopticRateOfChange): string[] {
  return checksRateOfChangeErrors({ ...r, remove_failing_values: false });
}

/**
 * The rules of one series' limits, chart range and thresholds, each message under `at` (the
 * series' path): "at: low_limit must …", "at.rate_of_change.thresholds: …".
 */
export function seriesErrors(s: SynopticSeriesDefinition, at: string): string[] {
  const errors: string[] = [];
  if (s.low_limit !== null && s.high_limit !== null && s.low_limit > s.high_limit) errors.push(`${at}: ${SYNOPTIC_RULES.limitsOrder}`);
  if (s.default_chart_min !== null && s.default_chart_max !== null && s.default_chart_min >= s.default_chart_max) errors.push(`${at}: ${SYNOPTIC_RULES.chartOrder}`);
  if (s.rate_of_change) errors.push(...rateOfChangeErrors(s.rate_of_change).map((e) => `${at}.rate_of_change.${e}`));
  return errors;
}

/**
 * The rules of the stations list that need no database: each station once, each group once per
 * station, the rules of each series. Messages start with the member ("stations[1].station: …").
 */
export function stationsErrors(stations: readonly SynopticStationDefinition[]): string[] {
  const errors: string[] = [];
  const stationsSeen = new Set<number>();
  stations.forEach((s, i) => {
    if (stationsSeen.has(s.station)) errors.push(`stations[${i}].station: ${SYNOPTIC_RULES.repeatedStation}`);
    stationsSeen.add(s.station);
    const groupsSeen = new Set<number>();
    s.timeseries_groups.forEach((g, j) => {
      const at = `stations[${i}].timeseries_groups[${j}]`;
      if (groupsSeen.has(g.timeseries_group)) errors.push(`${at}.timeseries_group: ${SYNOPTIC_RULES.repeatedGroup}`);
      groupsSeen.add(g.timeseries_group);
      errors.push(...seriesErrors(g, at));
    });
  });
  return errors;
}
