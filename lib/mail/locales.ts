import { db, Prisma, type Tx } from "@/lib/db";
import { DEFAULT_LOCALE, isLocale, type Locale } from "@/lib/i18n";

/**
 * The language of each recipient's e-mail (public.md §3): the language of the account the
 * address belongs to, when it chose one; else `fallback` (the language of the request that caused
 * the mail, when there is one), else English. An address shared by several accounts takes the
 * first active one's that chose a language.
 */
export async function recipientLocales(addresses: readonly string[], fallback: Locale = DEFAULT_LOCALE, client: Pick<Tx, "$queryRaw"> = db().prisma): Promise<Map<string, Locale>> {
  const wanted = [...new Set(addresses.filter((a) => a !== "").map((a) => a.toLowerCase()))];
  const chosen = new Map<string, Locale>();
  if (wanted.length) {
    const rows = await client.$queryRaw<{ email: string; language: string }[]>(Prisma.sql`
      SELECT email, language FROM users WHERE lower(email) IN (${Prisma.join(wanted)}) AND language <> ''
      ORDER BY is_active DESC, id`);
    for (const { email, language } of rows) {
      const key = email.toLowerCase();
      if (!chosen.has(key) && isLocale(language)) chosen.set(key, language);
    }
  }
  return new Map(addresses.map((a) => [a, chosen.get(a.toLowerCase()) ?? fallback]));
}

/** The recipients grouped by the language of their e-mail, in the order they came. */
export async function recipientsByLocale(addresses: readonly string[], fallback: Locale = DEFAULT_LOCALE, client?: Pick<Tx, "$queryRaw">): Promise<Map<Locale, string[]>> {
  const groups = new Map<Locale, string[]>();
  for (const [address, locale] of await recipientLocales(addresses, fallback, client)) {
    if (!groups.has(locale)) groups.set(locale, []);
    groups.get(locale)!.push(address);
  }
  return groups;
}
