import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SITE_STYLESHEET_SLOT } from "./stylesheet-slot";

/**
 * public/site.css as the React pages inline it in their <head> (issue 17, item 3): a linked
 * stylesheet blocks the first paint until a second round trip (a revalidation with the browser's
 * cache warm) has answered, and the group page's chart is to be on screen from the HTML alone.
 * Comments and layout whitespace are dropped (the file has no strings or URLs they could touch);
 * the file stays for the API's HTML pages (lib/site/chrome.ts), which link it.
 */
let css: string | null = null;

export function minifyCss(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\s+/g, " ")
    .replace(/\s*([{};,])\s*/g, "$1")
    .replace(/:\s+/g, ":")
    .replace(/;}/g, "}")
    .trim();
}

export function siteStylesheet(): string {
  css ??= minifyCss(readFileSync(join(process.cwd(), "public", "site.css"), "utf8"));
  return css;
}

/** Leaves the stylesheet where components/site/InlineStylesheet.tsx renders it from on the server. */
export function leaveSiteStylesheet(): void {
  (globalThis as Record<symbol, string>)[SITE_STYLESHEET_SLOT] = siteStylesheet();
}
