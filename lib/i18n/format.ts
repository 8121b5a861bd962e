import type { Locale } from "@/lib/i18n/locales";

/**
 * Numbers on the site's pages, written per language (public.md §3): "52,560" and "12.5" in
 * English, "52.560" and "12,5" in Greek. Never for CSV, HTS or the API: those keep the dot.
 */
const INTEGERS = new Map<Locale, Intl.NumberFormat>();

/** A count with the language's thousands separator. */
export function formatCountIn(locale: Locale, n: number): string {
  let format = INTEGERS.get(locale);
  if (!format) INTEGERS.set(locale, (format = new Intl.NumberFormat(locale === "en" ? "en-US" : locale)));
  return format.format(n);
}

/**
 * A decimal number as written (its digits kept, as the data has them) with the language's
 * decimal separator: "12.50" stays "12.50" in English and is "12,50" in Greek.
 */
export function decimalIn(locale: Locale, text: string | number): string {
  const s = String(text);
  return decimalSeparator(locale) === "." ? s : s.replace(".", decimalSeparator(locale));
}

const SEPARATORS = new Map<Locale, string>();

/** The language's decimal separator. */
export function decimalSeparator(locale: Locale): string {
  let sep = SEPARATORS.get(locale);
  if (sep === undefined) {
    sep = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? ".";
    SEPARATORS.set(locale, sep);
  }
  return sep;
}
