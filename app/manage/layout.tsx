import { NextIntlClientProvider } from "next-intl";
import type { ReactNode } from "react";
import { clientMessages } from "@/lib/i18n";
import { requestLocale } from "@/lib/site/locale";

/** The management pages: their browser components' messages travel with them (MANAGE_CLIENT_NAMESPACES), not with every page. */
export default async function ManageLayout({ children }: { children: ReactNode }) {
  const locale = await requestLocale();
  return <NextIntlClientProvider messages={clientMessages(locale, "manage")}>{children}</NextIntlClientProvider>;
}
