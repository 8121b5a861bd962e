/**
 * Processes in words, as the group page lists them (processing.md §5):
 * "Checked: range 0…40 °C, soft 2…38; rate of change 10min 5 °C", "Hourly mean, at most 2
 * missing", "Curve interpolation into Discharge: 2 periods, 2020-01-01 to 2021-12-31".
 */
import { db } from "@/lib/db";
import { DEFAULT_LOCALE, descrIn, type Locale } from "@/lib/i18n";
import { groupTitleIn } from "@/lib/site/group-title";
import { kindOf, type ProcessConfig } from "./types";
import type { DescribeContext } from "./types/kind";

export { stepWords, stepWordsIn } from "./types/aggregation";

/**
 * `unit`: the group's unit symbol; `targetGroupName`: the group a process writes into, when not its
 * own, as the page names it; `locale`: the page's language (English when not given).
 */
export function describeProcess(p: ProcessConfig, context: DescribeContext): string {
  return kindOf(p).describe(p, context);
}

/**
 * The words of several processes, the groups they write into (when not their own) named as the
 * pages name groups, in one query. `unit`: each one's group's unit symbol; `locale`: the page's language.
 */
export async function describeProcesses(definitions: readonly ProcessConfig[], unit: (i: number) => string, locale: Locale = DEFAULT_LOCALE): Promise<string[]> {
  const targets = [...new Set(definitions.flatMap((d) => kindOf(d).targetGroupId(d) ?? []))];
  const groups = targets.length === 0 ? [] : await db().prisma.timeseriesGroup.findMany({ where: { id: { in: targets } }, include: { variable: true } });
  const names = new Map(groups.map((g) => [g.id, groupTitleIn(locale, { id: g.id, name: g.name, variable: descrIn(locale, g.variable) })]));
  return definitions.map((d, i) => {
    const target = kindOf(d).targetGroupId(d);
    return describeProcess(d, { unit: unit(i), targetGroupName: target === null ? undefined : names.get(target), locale });
  });
}
