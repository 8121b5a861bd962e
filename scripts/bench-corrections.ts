import { existsSync } from "node:fs";
import { siteLogin } from "../tests/support/site-session";
import { CHROMIUM_ARGS } from "./chart-marks";
import { recordsBody } from "./upload-body";

/**
 * corrections.md §4 on the series of 1,051,200 ten-minute records from 2005-01-01: delete one
 * year (52,560 records) and revert it, replace one month and revert it, transform one month and
 * its dry run. Each correction is reverted before the next one, so that every repetition works on
 * the same records; the figures are medians.
 */
export interface CorrectionRow {
  workload: string;
  ms: number;
  target: number;
}

const DAY = 86400;
const YEAR_START = Date.UTC(2010, 0, 1) / 1000;
const MONTH_START = Date.UTC(2012, 5, 1) / 1000;
const MONTH_RECORDS = 30 * 144;

const iso = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function correctionsBench(base: string, auth: Record<string, string>, repeat = 7): Promise<CorrectionRow[]> {
  const call = async (method: string, path: string, init: { json?: unknown; form?: Buffer } = {}) => {
    const headers: Record<string, string> = { ...auth };
    let body: BodyInit | undefined;
    if (init.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = init.form as unknown as BodyInit;
    }
    const t = performance.now();
    const response = await fetch(base + path, { method, headers, body });
    const text = await response.text();
    const ms = performance.now() - t;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return { ms, json: text ? JSON.parse(text) as Record<string, unknown> : {} };
  };
  const revert = async (id: unknown) => {
    if (typeof id !== "number") throw new Error(`no correction to revert (${String(id)})`);
    return (await call("POST", `corrections/${id}/revert/`, { json: {} })).ms;
  };
  const times: Record<string, number[]> = {};
  const note = (name: string, ms: number) => (times[name] ??= []).push(ms);

  const year = `start_date=${iso(YEAR_START)}&end_date=${iso(YEAR_START + 365 * DAY - 600)}`;
  const month = { start_date: iso(MONTH_START), end_date: iso(MONTH_START + 30 * DAY - 600) };
  // The uploaded month differs from the stored one (recordsBody's values depend on the line number).
  const replacement = Buffer.concat([recordsBody(MONTH_RECORDS, MONTH_START), Buffer.from("&mode=replace")]);
  for (let i = 0; i < repeat + 1; i++) {
    const keep = i > 0; // the first round warms up
    const deleted = await call("DELETE", `data/?${year}`);
    if (deleted.json.deleted !== 52_560) throw new Error(`deleted ${String(deleted.json.deleted)} records, not 52,560`);
    const revertDelete = await revert(deleted.json.correction);
    const replaced = await call("POST", "data/", { form: replacement });
    const page = (await call("GET", "corrections/?page_size=1")).json as { results: { id: number; kind: string }[] };
    if (page.results[0]?.kind !== "replace") throw new Error("the replacement is not the latest correction");
    const revertReplace = await revert(page.results[0].id);
    const dry = await call("POST", "data/transform/", { json: { ...month, operation: "offset", amount: 0.5, dry_run: true } });
    const transformed = await call("POST", "data/transform/", { json: { ...month, operation: "offset", amount: 0.5 } });
    if (transformed.json.changed !== MONTH_RECORDS) throw new Error(`transformed ${String(transformed.json.changed)} records, not ${MONTH_RECORDS}`);
    const revertTransform = await revert(transformed.json.correction);
    if (!keep) continue;
    note("delete", deleted.ms);
    note("revertDelete", revertDelete);
    note("replace", replaced.ms);
    note("revertReplace", revertReplace);
    note("dry", dry.ms);
    note("transform", transformed.ms);
    note("revertTransform", revertTransform);
  }
  const m = (name: string) => median(times[name]);
  return [
    { workload: "corrections: delete one year (52,560 of 1,051,200 records)", ms: m("delete"), target: 200 },
    { workload: "corrections: revert that deletion", ms: m("revertDelete"), target: 300 },
    { workload: "corrections: replace one month (upload mode=replace, 4,320 records)", ms: m("replace"), target: 200 },
    { workload: "corrections: revert that replacement", ms: m("revertReplace"), target: 300 },
    { workload: "corrections: transform one month (offset, 4,320 records)", ms: m("transform"), target: 150 },
    { workload: "corrections: its dry run", ms: m("dry"), target: 100 },
    { workload: "corrections: revert the transform", ms: m("revertTransform"), target: 300 },
  ];
}

/**
 * corrections.md §4: the workbench with one year drawn and two compared series, to interactive —
 * from navigation (a new browser context each time: an empty cache) until the chart is drawn with
 * the year's records and both overlays, and the table lists its first records. Its address names
 * the range and the compared series (lib/series/workbench.ts). Debian's Chromium; null without it.
 */
export async function workbenchTimes(site: string, page: string, login: { username: string; password: string }, repeat = 15): Promise<number | null> {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) return null;
  const { jar, error } = await siteLogin(site, login.username, login.password);
  if (error) throw new Error(`workbench: login: ${error}`);
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const times: number[] = [];
    for (let i = 0; i < repeat + 1; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies(jar.entries().map(([name, value]) => ({ name, value, url: site })));
      const tab = await context.newPage();
      const started = performance.now();
      await tab.goto(site + page, { waitUntil: "commit" });
      // One condition, checked at every frame: the chart drawn with the year's records, the table
      // listing its first ones, and both overlays in their own colours (components/chart/Compare.tsx).
      await tab.waitForFunction(() => document.querySelector('.workbench-chart[data-state="ready"]') !== null
        && document.querySelector(".workbench-table tbody tr") !== null
        && document.querySelectorAll(".workbench-chart path.chart-line[stroke='#c2410c'], .workbench-chart path.chart-line[stroke='#15803d']").length === 2,
      null, { polling: "raf", timeout: 60_000 });
      const ms = performance.now() - started;
      const heading = await tab.locator("#wb-records").innerText();
      if (!/\(52,560\)/.test(heading)) throw new Error(`workbench: the year's records are not all listed ("${heading}")`);
      if (i > 0) times.push(ms); // the first load warms the server up
      await context.close();
    }
    return median(times);
  } finally {
    await browser.close();
  }
}
