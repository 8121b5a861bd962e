import type { FieldErrors } from "@/lib/domain/errors";
import { CATALOGUES, DEFAULT_LOCALE, translator, type Locale } from "@/lib/i18n";
import { inFormWords, TIME_STEP_FIELDS } from "@/lib/site/form-words";

/**
 * The checks' messages on the site's pages in the page's language (public.md §3). The checks
 * (lib/http/fields.ts, the capabilities' readers and services) are shared with the API, whose
 * messages stay English (DRF's words, which clients parse); a page translates them here, once,
 * where its form state is built: each English message is matched against the English catalogue's
 * `fieldErrors` messages, read as templates ("Ensure this field has no more than {n} characters."),
 * and written with the same arguments in the page's language. A message no template matches stays
 * English (in the forms' words, lib/site/form-words.ts). The messages of background runs, stored
 * in English, are translated the same way (runMessageIn, the `runMessages` templates).
 */

/** The namespaces whose English messages are read as templates of messages written in English. */
type TemplateNamespace = "fieldErrors" | "runMessages" | "activitySummaries" | "activityObjects" | "apiMessages";

/** Where a message of a namespace is looked up: its own templates, then those its arguments may be. */
const LOOKUP: Record<TemplateNamespace, TemplateNamespace[]> = {
  fieldErrors: ["fieldErrors"],
  runMessages: ["runMessages", "fieldErrors"],
  activitySummaries: ["activitySummaries", "activityObjects"],
  activityObjects: ["activityObjects"],
  apiMessages: ["apiMessages", "fieldErrors"],
};

interface Template {
  key: string;
  pattern: RegExp;
  names: string[];
  /** How many characters of it are not arguments. */
  literal: number;
}

const templates = new Map<TemplateNamespace, Template[]>();

/**
 * The English messages of a namespace as patterns: an argument `{name}` matches any text. The
 * most specific first (the most words around the arguments), so that "… greater than or equal to
 * {min} and less than or equal to {max}." wins over "… greater than or equal to {n}.".
 */
function englishTemplates(namespace: TemplateNamespace): Template[] {
  let list = templates.get(namespace);
  if (!list) {
    list = Object.entries(CATALOGUES.en[namespace]).map(([key, message]) => {
      const names: string[] = [];
      let literal = 0;
      const source = message.split(/\{(\w+)\}/).map((part, i) => {
        if (i % 2 === 0) {
          literal += part.length;
          return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        }
        names.push(part);
        return "(.+?)";
      }).join("");
      return { key, pattern: new RegExp(`^${source}$`, "s"), names, literal };
    }).sort((a, b) => b.literal - a.literal);
    templates.set(namespace, list);
  }
  return list;
}

/**
 * A message written in English, translated by the first template of `namespace` it matches (then
 * of the field errors'), or null when none matches. An argument that is itself a message of a
 * template (the span of storable times in a limit's message, a time step's problem) is translated
 * too, `depth` levels down (once by default; an activity summary names objects within objects).
 */
export function byTemplate(locale: Locale, message: string, namespace: TemplateNamespace = "fieldErrors", depth = 1): string | null {
  for (const ns of LOOKUP[namespace]) {
    for (const { key, pattern, names } of englishTemplates(ns)) {
      const m = pattern.exec(message);
      if (!m) continue;
      const values = Object.fromEntries(names.map((name, i) => [name, (depth > 0 && byTemplate(locale, m[i + 1], namespace, depth - 1)) || groupedNumberIn(locale, m[i + 1])]));
      return (translator(locale, ns) as unknown as (key: string, values: Record<string, string>) => string)(key, values);
    }
  }
  return null;
}

/** A count as English groups its digits ("1,200") as `locale` does ("1.200"); any other text as it is. */
function groupedNumberIn(locale: Locale, text: string): string {
  return /^\d{1,3}(?:,\d{3})+$/.test(text) ? new Intl.NumberFormat(locale).format(Number(text.replace(/,/g, ""))) : text;
}

/** A line of a list of thresholds, as the API names it: `thresholds[1].delta_t: …` or `rate_of_change.thresholds[0]: …`. */
const THRESHOLD_LINE = /^(?:rate_of_change\.)?thresholds\[(\d+)\](?:\.\w+)?: ?(.*)$/s;

/**
 * A message about a member of a nested value, as the API names it: `lower_bound: …`,
 * `thresholds: …`, `periods[0].points[2]: …`.
 */
/** A message about one typed address of an e-mail list (lib/site/email-lists.ts namingAddresses). */
const ADDRESS_LINE = /^“([^”]*)”: (.*)$/s;
const MEMBER_LINE = /^([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*): (.*)$/s;

type Member = keyof (typeof CATALOGUES)["en"]["fieldMembers"];

/**
 * A member's name as a page in `locale` writes it before its message: its label ("Κάτω όριο"),
 * or the name as it is in English and when it has none. A curve's periods keep the API's name:
 * the process form then tells the period and line (lib/processing/types/curve-interpolation.ts).
 */
export function memberNameIn(locale: Locale, path: string): string {
  if (locale === DEFAULT_LOCALE || path.startsWith("periods[")) return path;
  const last = /([a-z_]+)(?:\[\d+\])?$/.exec(path)![1];
  return last in CATALOGUES.en.fieldMembers ? translator(locale, "fieldMembers")(last as Member) : path;
}

/**
 * One message of a check as a page in `locale` shows it (`field`: the field it is about). English
 * pages get it as it is (their forms put it in their words in the browser, lib/site/form-words.ts).
 */
export function fieldErrorIn(locale: Locale, message: string, field?: string): string {
  if (locale === DEFAULT_LOCALE) return message;
  const t = translator(locale, "fieldErrors");
  // An address typed in an e-mail list, named by the form (lib/site/email-lists.ts): the message about it.
  const address = ADDRESS_LINE.exec(message);
  if (address) return `«${address[1]}»: ${fieldErrorIn(locale, address[2], field)}`;
  const line = THRESHOLD_LINE.exec(message);
  const member = line ? null : MEMBER_LINE.exec(message);
  if (member) {
    const translated = byTemplate(locale, member[2]);
    if (translated !== null) return `${memberNameIn(locale, member[1])}: ${translated}`;
  }
  const inner = line ? line[2] : message;
  const translated = byTemplate(locale, inner);
  if (translated === null) return inFormWords(message, field);
  const timeStep = (field !== undefined && TIME_STEP_FIELDS.includes(field)) || /is not a valid time step\.$/.test(inner);
  return (line ? `${t("thresholdsLine", { line: String(Number(line[1]) + 1) })}: ` : "") + translated + (timeStep ? ` ${t("timeStepHelp")}` : "");
}

/** A form's messages, field by field, as a page in `locale` shows them. */
export function fieldErrorsIn(locale: Locale, errors: FieldErrors): FieldErrors {
  if (locale === DEFAULT_LOCALE) return errors;
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, messages.map((m) => fieldErrorIn(locale, m, field))]));
}

/**
 * A background run's message (a process run's error or note), stored in English and listed by the
 * API as it is, as a page in `locale` shows it: by the `runMessages` templates; one none matches
 * stays English.
 */
export function runMessageIn(locale: Locale, message: string): string {
  if (locale === DEFAULT_LOCALE) return message;
  return byTemplate(locale, message, "runMessages") ?? message;
}

/**
 * An activity log entry's summary ("Created station …", "Changed …: name, altitude"), stored in
 * English and listed by the API as it is, as a page in `locale` shows it: by the
 * `activitySummaries` templates, the objects it names and the counts by `activityObjects`' (several
 * levels down: a series names its group, a correction its counts). Field names stay the API's;
 * a summary no template matches stays English.
 */
export function activitySummaryIn(locale: Locale, summary: string): string {
  if (locale === DEFAULT_LOCALE) return summary;
  return byTemplate(locale, summary, "activitySummaries", 8) ?? summary;
}

/**
 * A refusal of the API that a management page's browser code shows as the API wrote it (the
 * workbench's corrections, the upload's lines: "line 3: invalid timestamp "x""), as a page in
 * `locale` shows it: by the `apiMessages` templates, else as a check's message; one neither
 * matches stays English.
 */
export function apiMessageIn(locale: Locale, message: string): string {
  if (locale === DEFAULT_LOCALE) return message;
  // The line first: as a template's argument it would be taken into another's ("{time} is not later …").
  const line = UPLOAD_LINE.exec(message);
  if (line) return `${translator(locale, "apiMessages")("line", { line: line[1] })}: ${apiMessageIn(locale, line[2])}`;
  return byTemplate(locale, message, "apiMessages") ?? fieldErrorIn(locale, message);
}

/** A message of the upload's about one line of the file: "line 3: invalid timestamp "x"". */
const UPLOAD_LINE = /^line (\d+): (.*)$/s;
