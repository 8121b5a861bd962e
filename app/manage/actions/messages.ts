"use server";

import { currentUser } from "@/lib/site/current-user";
import { apiMessageIn } from "@/lib/site/field-errors";
import { requestLocale } from "@/lib/site/locale";

/**
 * At most this many messages (what one refusal of the API holds: the upload's first 10 lines and
 * a few fields); one longer than this many characters is given back as it is: the templates'
 * patterns cost more with the length of what they read.
 */
const MAX_MESSAGES = 30;
const MAX_LENGTH = 500;

/**
 * The API's English refusals that a management page's browser code shows (the workbench's, the
 * upload's), in the page's language (public.md §3): the API itself answers in English always.
 * Signed-in users only; to anyone else, the messages as given.
 */
export async function messagesInPageLanguage(messages: unknown): Promise<string[]> {
  if (!Array.isArray(messages)) return [];
  const given = messages.slice(0, MAX_MESSAGES).map(String);
  if (!(await currentUser())) return given;
  const locale = await requestLocale();
  return given.map((m) => (m.length > MAX_LENGTH ? m : apiMessageIn(locale, m)));
}
