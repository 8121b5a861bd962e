import { createTranslator } from "use-intl/core";
import el from "@/lib/i18n/messages/el.json";
import en from "@/lib/i18n/messages/en.json";
import type { Locale } from "@/lib/i18n/locales";

/**
 * The message catalogues (public.md §3), one file per language: English is the reference whose
 * keys every other catalogue has (tests/unit/i18n-catalogues.test.ts); messages use ICU syntax.
 */
export type Messages = typeof en;

export const CATALOGUES: Record<Locale, Messages> = { en, el };

/**
 * The namespaces that browser components ("use client") translate: only these travel to the
 * browser with each page (app/layout.tsx); server components read the whole catalogue.
 */
export const CLIENT_NAMESPACES = ["common", "map", "chart", "compare", "download", "synoptic", "login", "logout", "register", "resend", "reset", "profile", "misc", "dates",
  // The management forms' own words (components/manage/Form.tsx): the station page's access request is one of them.
  "manageForm"] as const satisfies readonly (keyof Messages)[];

/**
 * The namespaces that the management pages' browser components translate: they travel only with
 * the pages under /manage/ (app/manage/layout.tsx), so the public pages stay light.
 */
export const MANAGE_CLIENT_NAMESPACES = ["manage", "manageOpsTelemetryFetch", "synopticForm", "managePickers", "manageZones", "manageSeriesUpload", "manageSeriesWorkbench"] as const satisfies readonly (keyof Messages)[];

/** The part of a catalogue that browser components use: the site's, and on the management pages theirs too. */
export function clientMessages(locale: Locale, area: "site" | "manage" = "site"): Partial<Messages> {
  const all = CATALOGUES[locale];
  const namespaces: readonly (keyof Messages)[] = area === "manage" ? [...CLIENT_NAMESPACES, ...MANAGE_CLIENT_NAMESPACES] : CLIENT_NAMESPACES;
  return Object.fromEntries(namespaces.map((ns) => [ns, all[ns]])) as Partial<Messages>;
}

/** The catalogue of a language. */
export function messagesOf(locale: Locale): Messages {
  return CATALOGUES[locale];
}

/**
 * A translator outside React (the HTML of the header and footer that route handlers share, e-mails):
 * `translator("el", "chrome")("search")`. Pages use next-intl's getTranslations/useTranslations.
 */
export function translator<const N extends keyof Messages>(locale: Locale, namespace: N) {
  return createTranslator({ locale, messages: CATALOGUES[locale], namespace });
}
