"use server";

import { currentUser } from "@/lib/site/current-user";
import { apiMessageIn } from "@/lib/site/field-errors";
import { requestLocale } from "@/lib/site/locale";

/** At most this many messages of at most this many characters: what one refusal of the API holds. */
const MAX_MESSAGES = 50;
const MAX_LENGTH = 2000;

/**
 * The API's English refusals that a management page's browser code shows (the workbench's, the
 * upload's), in the page's language (public.md §3): the API itself answers in English always.
 * Signed-in users only; to anyone else, the messages as given.
 */
export async function messagesInPageLanguage(messages: unknown): Promise<string[]> {
  if (!Array.isArray(messages)) return [];
  const given = messages.slice(0, MAX_MESSAGES).map((m) => String(m).slice(0, MAX_LENGTH));
  if (!(await currentUser())) return given;
  const locale = await requestLocale();
  return given.map((m) => apiMessageIn(locale, m));
}
