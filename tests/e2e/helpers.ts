import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, type APIRequestContext, type BrowserContext, type Page } from "@playwright/test";

/** Shared by the browser tests: the test database, users, screenshots, and no internet. */
export const ROOT = resolve(__dirname, "..", "..");
export const SCREENSHOTS = join(ROOT, "tests", "artifacts", "screenshots");

/** The demo data (lib/demo/data.ts) as the tests rely on it. */
export const DEMO = {
  stations: 6,
  /** Stations with a group of variable "Precipitation". */
  precipitation: ["Arta", "Athens (Zografou)"],
  /** Stations with a group of variable "Temperature". */
  temperature: ["Arta", "Athens (Zografou)", "Ioannina", "Komboti", "Larisa"],
};

let counter = 0;
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${process.pid}${++counter}`;

/**
 * Creates a user in the test server's database with the project's own command: the script
 * that `npm run createuser` and `createsuperuser` run, without npm and tsx's launcher around it
 * (they took a third of each call's 2.3 CPU-s, and the specs make some 40 users).
 */
export function createUser(username: string, password: string, options: { email?: string; superuser?: boolean; canAddStations?: boolean; databaseUrl?: string } = {}): void {
  const extra = [...(options.superuser ? ["--superuser"] : []), ...(options.canAddStations ? ["--can-add-stations"] : [])];
  execFileSync(process.execPath, ["--import", "tsx", "scripts/createuser.ts", "--username", username, "--password", password, "--email", options.email ?? `${username}@example.com`, ...extra], {
    cwd: ROOT,
    env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.json", DATABASE_URL: options.databaseUrl ?? process.env.E2E_DATABASE_URL, ENHYDRIS_DEMO_DATA: "0" },
    stdio: "pipe",
  });
}

/** The text of the e-mail sent to an address (the server's development outbox), once it is there. */
export async function mailTo(address: string): Promise<string> {
  const dir = process.env.E2E_OUTBOX!;
  let found: string | undefined;
  await expect.poll(() => {
    const files = existsSync(dir) ? readdirSync(dir).sort() : [];
    found = files.map((f) => readFileSync(join(dir, f), "utf8")).find((m) => m.includes(`\nTo: ${address}\n`));
    return found !== undefined;
  }, { timeout: 10_000 }).toBe(true);
  return found!;
}

/** A raw message's text with its parts' transfer encodings undone (quoted-printable and base64: Greek text is sent so). */
export function mailText(raw: string): string {
  const decoded = [...raw.matchAll(/Content-Transfer-Encoding: (base64|quoted-printable)\r?\n(?:[^\r\n]+\r?\n)*\r?\n([\s\S]*?)(?=\r?\n--|$)/gi)].map(([, encoding, body]) =>
    encoding.toLowerCase() === "base64"
      ? Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
      : Buffer.from(body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), "latin1").toString("utf8"));
  return [raw, ...decoded].join("\n");
}

/** Map tiles and anything else outside the test server are unreachable: fail them at once. */
export async function offline(context: BrowserContext): Promise<void> {
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route) => route.abort());
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 1280;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width < 600 ? "phone" : "desktop"}.png`), fullPage: true, animations: "disabled" });
}

/** Waits until the home page's map has its points (not its tiles). */
export async function mapReady(page: Page, count: number): Promise<void> {
  await expect(page.locator(".map-frame")).toHaveAttribute("data-map-state", "ready");
  await expect(page.locator(".map-frame")).toHaveAttribute("data-points", String(count));
  if (count > 0) await expect(page.locator(".leaflet-marker-icon").first()).toBeVisible();
}

/** How many stations the visible markers stand for (clusters count their points). */
export async function markerTotal(page: Page): Promise<number> {
  const counts = await page.locator(".leaflet-marker-icon [data-count]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-count"))));
  return counts.reduce((a, b) => a + b, 0);
}

/** A URL whose path (and query) is exactly `pathAndQuery`, on the test server. */
export function at(pathAndQuery: string): RegExp {
  return new RegExp(`^https?://[^/]+${pathAndQuery.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
}

/** Waits until React has hydrated the page, so that typing and clicking reach its components. */
export async function hydrated(page: Page): Promise<void> {
  await expect(page.locator("html[data-hydrated='true']")).toHaveCount(1);
  await expect(page.locator("form[data-client]:not([data-hydrated])")).toHaveCount(0);
}

/** Opens a path and waits for hydration. */
export async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await hydrated(page);
}

/** The page's alert (not Next's route announcer, which also has role=alert). */
export const alertBox = (page: Page) => page.locator("[role='alert']:not(#__next-route-announcer__)");

export async function logIn(page: Page, username: string, password: string, path = "/accounts/login/"): Promise<void> {
  await open(page, path);
  await page.getByLabel("Username or e-mail address").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/** On the profile page: a bad username and a wrong current password, saved, until both forms show their messages. */
export async function profileWithErrors(page: Page): Promise<void> {
  await page.getByLabel("Username").fill("not valid!");
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.locator("#username-errors")).toBeVisible();
  await page.getByLabel("Current password").fill("wrong-one");
  await page.getByLabel("New password", { exact: true }).fill("1234");
  await page.getByLabel("New password again").fill("1234");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.locator("#old_password-errors")).toBeVisible();
}

/** Fails when the page scrolls sideways, the usual sign of a layout that does not fit a phone. */
export async function noHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, "the page scrolls sideways").toBeLessThanOrEqual(0);
}

/** `days` of 10-minute records from 2025-01-01 UTC, 10 plus a daily wave, as data/ writes them. */
export function waveRecords(days: number): string {
  const lines: string[] = [];
  const start = Date.UTC(2025, 0, 1) / 1000;
  for (let i = 0; i < days * 144; i++) {
    const t = new Date((start + i * 600) * 1000).toISOString();
    lines.push(`${t.slice(0, 10)} ${t.slice(11, 16)},${(10 + Math.sin(i / 24)).toFixed(2)},`);
  }
  return `${lines.join("\r\n")}\r\n`;
}

/**
 * A new superuser and the API as that user: `post` creates and answers the new object's id,
 * `first` reads a list's first page; `owner`, `variable` and the units are the demo's.
 */
export async function superuserApi(request: APIRequestContext, prefix: string, password: string) {
  const admin = unique(prefix);
  createUser(admin, password, { superuser: true });
  const login = await request.post("/api/auth/login/", { form: { username: admin, password } });
  const headers = { Authorization: `Token ${((await login.json()) as { key: string }).key}` };
  const post = async (path: string, data: object) => {
    const r = await request.post(path, { headers, data });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  const first = async (path: string) => ((await (await request.get(path)).json()) as { results: { id: number }[] }).results;
  const owner = (await first("/api/organizations/"))[0].id;
  const variable = (await first("/api/variables/"))[0].id;
  const units = await first("/api/units/");
  return { admin, headers, post, owner, variable, units };
}
