import { isValidTimeStep } from "@/lib/formats/time-step";

/**
 * The API's words as the site's forms put them (issue 36): the API's messages name its members
 * (`lower_bound ≤ soft_lower_bound`, `low_limit`, `thresholds[1].delta_t: …`), which a form shows
 * under labels ("Lower bound", "Low limit", a line of "Thresholds"); and a time step typed as people
 * write one ("10 minutes") is read as the API's ("10min"), or its message says how to write it.
 * The API keeps its own words. Client-safe: no server imports.
 */

/** The API's member names as the forms label them (management.md §1: the names in words). */
const LABELS: Record<string, string> = {
  soft_lower_bound: "Soft lower bound",
  soft_upper_bound: "Soft upper bound",
  lower_bound: "Lower bound",
  upper_bound: "Upper bound",
  low_limit: "Low limit",
  high_limit: "High limit",
  default_chart_min: "Default chart min",
  default_chart_max: "Default chart max",
  delta_t: "Time difference",
  allowed_diff: "Largest change",
  target_time_step: "Target time step",
  time_step: "Time step",
  max_missing: "Max missing",
  resulting_timestamp_offset: "Resulting timestamp offset",
  fresh_time_limit: "Fresh time limit",
  display_timezone: "Display time zone",
  early_warning_emails: "Early warning e-mails",
  rate_of_change: "Rate of change",
  thresholds: "Thresholds",
};

const NAME = new RegExp(`\\b(${Object.keys(LABELS).join("|")})\\b`, "g");

/** How a time step is written, after the API's message about one. */
export const TIME_STEP_HELP = "Write a number and a unit, e.g. 10min, 1h (an hour) or 1D (a day).";

/**
 * A message of the API as a form shows it: member names as their labels (capitalized where a
 * message or one of its parts begins, else in lower case), a line of a list of thresholds as
 * "Thresholds, line 2", and a time step's message (any message of a time step `field`) with how
 * to write one.
 */
export function inFormWords(message: string, field?: string): string {
  let text = message.replace(/(?:rate_of_change\.)?thresholds\[(\d+)\](?:\.|(?=:))/g, (_, k: string) => `Thresholds, line ${Number(k) + 1}: `)
    .replace(/: :/g, ":");
  text = text.replace(NAME, (name: string, _: string, at: number) => {
    const label = LABELS[name];
    const begins = at === 0 || /[:.]\s*$/.test(text.slice(Math.max(0, at - 2), at));
    return begins ? label : label.toLowerCase();
  });
  if (/is not a valid time step\.$/.test(text) || (field !== undefined && TIME_STEP_FIELDS.includes(field) && !text.endsWith(TIME_STEP_HELP))) {
    text += ` ${TIME_STEP_HELP}`;
  }
  return text;
}

const UNITS: [RegExp, string][] = [
  [/^(?:minutes?|mins?)$/, "min"],
  [/^(?:hours?|hrs?|h)$/, "h"],
  [/^(?:days?|d)$/, "D"],
  [/^(?:months?)$/, "M"],
  [/^(?:years?|yrs?|y)$/, "Y"],
];
const EVERY: Record<string, string> = { hourly: "1h", daily: "1D", monthly: "1M", yearly: "1Y", annual: "1Y", annually: "1Y" };

/**
 * A time step as typed on the site ("10 minutes", "1 hour", "daily", "30 min") in the API's form
 * ("10min", "1h", "1D", "30min"); anything else as typed (the API then says what is wrong).
 */
export function typedTimeStep(typed: string): string {
  const text = typed.trim();
  if (isValidTimeStep(text)) return text;
  const lower = text.toLowerCase();
  if (EVERY[lower]) return EVERY[lower];
  const m = /^(\d*)\s*-?\s*([a-z]+)$/.exec(lower);
  if (!m) return typed;
  const unit = UNITS.find(([pattern]) => pattern.test(m[2]))?.[1];
  if (!unit) return typed;
  const step = `${m[1] === "" ? "1" : String(Number(m[1]))}${unit}`;
  return isValidTimeStep(step) ? step : typed;
}

/** A line of thresholds with its time difference in the API's form: "10 minutes 7.3" → "10min 7.3". */
export function withTypedTimeStep(line: string): string {
  const m = /^\s*(\d*\s*-?\s*[A-Za-z]+)(?![A-Za-z0-9])(.*)$/.exec(line);
  if (!m) return line;
  const step = typedTimeStep(m[1]);
  return step === m[1] ? line : step + m[2];
}

/** The fields of the site's forms that hold a time step. */
export const TIME_STEP_FIELDS = ["time_step", "target_time_step"];
