"use client";

import { useLocale } from "next-intl";
import { useCallback } from "react";
import { messagesInPageLanguage } from "@/app/manage/actions/messages";
import { DEFAULT_LOCALE } from "@/lib/i18n/locales";

/**
 * The API's English refusals as the page's language writes them (public.md §3): translated by the
 * server, where the catalogues and their templates are (a page in English asks nothing). When the
 * server cannot be asked, the messages as the API wrote them.
 */
export function useApiMessages(): (messages: string[]) => Promise<string[]> {
  const locale = useLocale();
  return useCallback(async (messages: string[]) => {
    if (locale === DEFAULT_LOCALE || messages.length === 0) return messages;
    try {
      const shown = await messagesInPageLanguage(messages);
      return messages.map((m, i) => shown[i] ?? m);
    } catch {
      return messages;
    }
  }, [locale]);
}
