import type { getTranslations } from "next-intl/server";

// The words the pages of a group and its series share, in the page's language.

type GroupTranslator = Awaited<ReturnType<typeof getTranslations<"manageSeriesGroup">>>;
type CommonTranslator = Awaited<ReturnType<typeof getTranslations<"common">>>;

/**
 * What a delete of a group or a time series takes, in the page's language: "7 time series,
 * 1,051,200 records" (as contentsText writes it in English); "" when it takes nothing.
 */
export function contentsWords(t: GroupTranslator, c: { series?: number; records?: number }): string {
  const parts: string[] = [];
  if ((c.series ?? 0) > 0) parts.push(t("contentsSeries", { count: c.series! }));
  if ((c.records ?? 0) > 0) parts.push(t("contentsRecords", { count: c.records! }));
  return parts.join(", ");
}

/** The series' types' words (Initial, Checked, Regularized, Aggregated) in the common catalogue. */
const TYPE_KEYS = { Initial: "typeInitial", Checked: "typeChecked", Regularized: "typeRegularized", Aggregated: "typeAggregated" } as const;

/** A series' type in the page's language; one the catalogue does not know stays as it is. */
export function typeWord(tc: CommonTranslator, type: string): string {
  return type in TYPE_KEYS ? tc(TYPE_KEYS[type as keyof typeof TYPE_KEYS]) : type;
}
