import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { NextIntlClientProvider } from "next-intl";
import { getTranslations } from "next-intl/server";
import { Suspense, type ReactNode } from "react";
import HydrationMark from "@/components/site/HydrationMark";
import InlineStylesheet from "@/components/site/InlineStylesheet";
import { settings } from "@/lib/config";
import { clientMessages } from "@/lib/i18n";
import { siteFooterHtml, siteHeaderHtml } from "@/lib/site/chrome";
import { currentUser } from "@/lib/site/current-user";
import { requestLocale } from "@/lib/site/locale";
import { leaveSiteStylesheet } from "@/lib/site/stylesheet";
import { registerRefusalPages } from "@/lib/frontend";

// The 403 and 404 pages the server sends for Next's empty error shells (lib/server/error-shells.ts).
registerRefusalPages();

export const dynamic = "force-dynamic";

function siteName(): string {
  return settings().siteName || "Enhydris";
}

export async function generateMetadata(): Promise<Metadata> {
  const name = siteName();
  const t = await getTranslations("chrome");
  return {
    title: { default: name, template: `%s · ${name}` },
    description: t("description"),
    icons: { icon: "/favicon.svg" },
  };
}

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#0b3954" };

function decoded(value: string | null): string {
  try {
    return value ? decodeURIComponent(value) : "";
  } catch {
    return "";
  }
}

/**
 * Every page: the header (search box, login state) and the footer of lib/site/chrome.ts, which
 * the password-reset pages of the API share (api.md §13, §16).
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const [user, requestHeaders, locale] = await Promise.all([currentUser(), headers(), requestLocale()]);
  const q = decoded(requestHeaders.get("x-enhydris-q"));
  // The page's own address, where the footer's language switcher comes back to (proxy.ts).
  const here = decoded(requestHeaders.get("x-enhydris-here")) || "/";
  leaveSiteStylesheet();
  return (
    <html lang={locale}>
      <head>
        {/* The stylesheet the API's HTML pages link (public/site.css), inline: nothing blocks the first paint. */}
        <InlineStylesheet />
      </head>
      <body>
        <div className="chrome" dangerouslySetInnerHTML={{ __html: siteHeaderHtml(user ? { username: user.username } : null, q, siteName(), locale) }} />
        {/* Only the namespaces that browser components use travel with the page. */}
        <NextIntlClientProvider messages={clientMessages(locale)}>
          <main id="main" className="site-main" tabIndex={-1}>
            {children}
          </main>
        </NextIntlClientProvider>
        <div className="chrome" dangerouslySetInnerHTML={{ __html: siteFooterHtml(locale, here) }} />
        <Suspense fallback={null}>
          <HydrationMark />
        </Suspense>
      </body>
    </html>
  );
}
