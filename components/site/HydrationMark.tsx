"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect } from "react";

/**
 * Two small duties of the layout on the client:
 * - marks the document once React has hydrated it (the browser tests wait for it);
 * - keeps the header's search box (static HTML from lib/site/chrome.ts, which client-side
 *   navigations do not re-render) showing the current search of the home page.
 */
export default function HydrationMark() {
  const pathname = usePathname();
  const params = useSearchParams();
  const q = pathname === "/" ? (params.get("q") ?? "") : "";
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  useEffect(() => {
    const input = document.getElementById("site-search-q") as HTMLInputElement | null;
    if (input && document.activeElement !== input) input.value = q;
  }, [q]);
  return null;
}
