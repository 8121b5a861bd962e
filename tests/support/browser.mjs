import { existsSync } from "node:fs";

/**
 * The browser of the browser tests (playwright.config.ts, scripts/test.mjs): `CHROMIUM_PATH`;
 * else Debian's chromium-headless-shell where it is installed, the same Chromium without the
 * windowing parts a headless run does not use (Playwright's own default for headless runs):
 * on the 2-core machine it used ~130 CPU-s less than /usr/bin/chromium over the suite (656
 * against 790 CPU-s), the screenshots alike; else Debian's Chromium.
 * @returns {string}
 */
export function browserPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM;
}

export const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
export const CHROMIUM = "/usr/bin/chromium";
