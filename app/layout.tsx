import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { Suspense, type ReactNode } from "react";
import HydrationMark from "@/components/site/HydrationMark";
import InlineStylesheet from "@/components/site/InlineStylesheet";
import { settings } from "@/lib/config";
import { siteFooterHtml, siteHeaderHtml } from "@/lib/site/chrome";
import { currentUser } from "@/lib/site/current-user";
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
  return {
    title: { default: name, template: `%s · ${name}` },
    description: "Hydrological and meteorological stations and their time series",
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
  const [user, requestHeaders] = await Promise.all([currentUser(), headers()]);
  const q = decoded(requestHeaders.get("x-enhydris-q"));
  leaveSiteStylesheet();
  return (
    <html lang="en">
      <head>
        {/* The stylesheet the API's HTML pages link (public/site.css), inline: nothing blocks the first paint. */}
        <InlineStylesheet />
      </head>
      <body>
        <div className="chrome" dangerouslySetInnerHTML={{ __html: siteHeaderHtml(user ? { username: user.username } : null, q, siteName()) }} />
        <main id="main" className="site-main" tabIndex={-1}>
          {children}
        </main>
        <div className="chrome" dangerouslySetInnerHTML={{ __html: siteFooterHtml() }} />
        <Suspense fallback={null}>
          <HydrationMark />
        </Suspense>
      </body>
    </html>
  );
}
