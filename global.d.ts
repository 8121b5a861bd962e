import type { Locale, Messages } from "@/lib/i18n";

// next-intl's keys and locales are checked by the type checker against the English catalogue.
declare module "next-intl" {
  interface AppConfig {
    Locale: Locale;
    Messages: Messages;
  }
}
