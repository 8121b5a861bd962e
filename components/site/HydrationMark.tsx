"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect } from "react";

/**
 * Query parameters that carry a one-time confirmation or refusal of the page a form redirected
 * to ("?done=station-saved", "?saved=1", "?deleted=…", "?problem=…"): shown once, then dropped
 * from the address, so that a reload, a bookmark or a shared link does not show them again.
 */
const ONE_TIME = ["done", "problem", "saved", "resent", "expired", "deleted", "logged_out"];

/**
 * Three small duties of the layout on the client:
 * - marks the document once React has hydrated it (the browser tests wait for it);
 * - keeps the header's search box (static HTML from lib/site/chrome.ts, which client-side
 *   navigations do not re-render) showing the current search of the home page;
 * - drops the one-time parameters from the address (the banner they made stays on the page).
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
  useEffect(() => {
    if (!ONE_TIME.some((name) => params.has(name))) return;
    const url = new URL(window.location.href);
    for (const name of ONE_TIME) url.searchParams.delete(name);
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }, [params]);
  return null;
}
