import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { alertBox, at, createUser, hydrated, logIn, mailTo, offline, profileWithErrors, shot, unique } from "./helpers";

/**
 * Every kind of page scanned by axe-core against WCAG 2.1 A and AA (the level public agencies
 * must meet), as the people who see it: anonymous visitors, a logged-in user, a superuser on the
 * management pages; at a desktop and a phone width. A test fails on any violation and lists
 * each one with its rule, impact, the elements' selectors and the page.
 */
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

const SIZES = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
];

const PASSWORD = "a11y-password-1";

/** Opens a page of the site (React) and waits until it is hydrated. */
async function visit(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await hydrated(page);
}

/**
 * The violations found so far in a test, one readable line (and its elements) each; what axe
 * could not decide (e.g. contrast over a picture) is attached to the test's report for a person.
 */
class Scanner {
  readonly found: string[] = [];
  readonly undecided: string[] = [];
  pages = 0;

  constructor(private readonly page: Page) {}

  /** Opens a page of the site (React), waits until it is hydrated, and scans it. */
  async visit(path: string, name: string): Promise<void> {
    await visit(this.page, path);
    await this.scan(name);
  }

  async scan(name: string): Promise<void> {
    await this.page.waitForLoadState("networkidle").catch(() => undefined);
    const results = await new AxeBuilder({ page: this.page })
      .withTags(TAGS)
      // Map tiles are third-party images, unreachable in the tests; nothing of ours is inside.
      .exclude(".leaflet-tile-pane")
      .analyze();
    this.pages += 1;
    const where = new URL(this.page.url()).pathname + new URL(this.page.url()).search;
    for (const v of results.violations) {
      const targets = v.nodes.map((n) => `      ${n.target.join(" ")}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`);
      this.found.push(`${name} (${where}): ${v.id} [${v.impact}] ${v.help}, ${v.nodes.length}×\n${targets.join("\n")}`);
    }
    for (const v of results.incomplete) {
      // Why axe could not decide, with the colours it saw where it saw them.
      const why = (n: (typeof v.nodes)[number]) => {
        const data = n.any[0]?.data as { fgColor?: string; bgColor?: string; messageKey?: string } | undefined;
        return data ? ` (${[data.messageKey, data.fgColor && `${data.fgColor} on ${data.bgColor ?? "?"}`].filter(Boolean).join(", ")})` : "";
      };
      this.undecided.push(`${name} (${where}): ${v.id} ${v.help}:\n${v.nodes.map((n) => `      ${n.target.join(" ")}${why(n)}`).join("\n")}`);
    }
  }

  /** Fails the test with every violation found on its pages. */
  async check(): Promise<void> {
    await test.info().attach("axe: needs review", { body: this.undecided.join("\n") || "nothing", contentType: "text/plain" });
    expect(this.pages).toBeGreaterThan(0);
    expect(this.found.length, `accessibility violations:\n${this.found.join("\n")}\n`).toBe(0);
  }
}

interface Fixture {
  admin: string;
  komboti: number;
  kombotiTemp: number;
  ioannina: number;
  ioanninaTemp: number;
  station: number;
  group: number;
  series: number;
  process: number;
  file: number;
  image: number;
  event: number;
  synoptic: number;
  slug: string;
  source: number;
}

let made: Promise<Fixture> | undefined;

/**
 * A station of its own with a group, a series with data, a checks process, a file, an image and
 * an event, a synoptic group and a (disabled) replication source: one of each page kind; made once
 * per worker by a superuser through the API.
 */
function fixture(request: APIRequestContext): Promise<Fixture> {
  made ??= (async () => {
    const admin = unique("a11yadmin");
    createUser(admin, PASSWORD, { superuser: true });
    const login = await request.post("/api/auth/login/", { form: { username: admin, password: PASSWORD } });
    expect(login.status()).toBe(200);
    const headers = { Authorization: `Token ${((await login.json()) as { key: string }).key}` };
    const call = async <T = { id: number }>(method: "GET" | "POST", path: string, options: { data?: object; multipart?: Record<string, unknown> } = {}): Promise<T> => {
      const r = await request.fetch(path, { method, headers, ...options } as Parameters<APIRequestContext["fetch"]>[1]);
      expect(r.status(), `${method} ${path}: ${await r.text()}`).toBeLessThan(300);
      return (r.status() === 204 ? null : await r.json()) as T;
    };
    type List = { results: { id: number; name: string }[] };
    const stations = await call<List>("GET", "/api/stations/?page_size=100");
    const sid = (name: string) => stations.results.find((s) => s.name === name)!.id;
    const gid = async (station: number, name: string) => (await call<List>("GET", `/api/stations/${station}/timeseriesgroups/`)).results.find((g) => g.name === name)!.id;
    const [komboti, ioannina] = [sid("Komboti"), sid("Ioannina")];
    const organizations = await call<List>("GET", "/api/organizations/");
    const variables = await call<List>("GET", "/api/variables/");
    const units = await call<List>("GET", "/api/units/");
    const station = (await call("POST", "/api/stations/", { data: { name: unique("A11y gauge "), code: "A11Y", geom: "POINT (21.1 39.2)", owner: organizations.results[0].id } })).id;
    const group = (await call("POST", `/api/stations/${station}/timeseriesgroups/`, { data: { name: "Stage", precision: 2, variable: variables.results[0].id, unit_of_measurement: units.results[0].id } })).id;
    const groupPath = `/api/stations/${station}/timeseriesgroups/${group}`;
    const series = (await call("POST", `${groupPath}/timeseries/`, { data: { type: "Initial", time_step: "10min" } })).id;
    await call("POST", `${groupPath}/timeseries/${series}/data/`, { data: { timeseries_records: "2025-01-01 00:00,1.20,\n2025-01-01 00:10,1.35,\n2025-01-01 00:20,1.50,\n", timezone: "UTC" } });
    const process = (await call("POST", `${groupPath}/processes/`, { data: { type: "checks", range_check: { lower_bound: 0, upper_bound: 10 } } })).id;
    const file = (await call("POST", `/api/stations/${station}/files/`, {
      multipart: { descr: "Station manual", date: "2024-05-02", content: { name: "manual.txt", mimeType: "text/plain", buffer: Buffer.from("A manual\n") } },
    })).id;
    // The smallest valid PNG: one transparent pixel.
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
    const image = (await call("POST", `/api/stations/${station}/images/`, {
      multipart: { descr: "The station in spring", date: "2024-04-10", content: { name: "station.png", mimeType: "image/png", buffer: png } },
    })).id;
    const eventTypes = await call<List>("GET", "/api/eventtypes/");
    const event = (await call("POST", `/api/stations/${station}/events/`, { data: { date: "2025-03-14", user: "Bilbo", report: "Cleaned the funnel", type: eventTypes.results[0].id } })).id;
    const [kombotiTemp, ioanninaTemp] = [await gid(komboti, "Air temperature"), await gid(ioannina, "Air temperature")];
    const slug = unique("a11y-").toLowerCase();
    const synoptic = (await call("POST", "/api/synopticgroups/", {
      data: {
        name: "Epirus watch", slug, display_timezone: "Etc/GMT-2", fresh_time_limit: 3600, early_warning_emails: [],
        stations: [
          { station, timeseries_groups: [{ timeseries_group: group, title: "Water level", high_limit: 1.4, low_limit: 0.5, default_chart_min: 0, default_chart_max: 3 }] },
          { station: komboti, timeseries_groups: [{ timeseries_group: kombotiTemp, high_limit: 3 }] },
          { station: ioannina, timeseries_groups: [{ timeseries_group: ioanninaTemp }] },
        ],
      },
    })).id;
    const source = (await call("POST", "/api/replication/sources/", { data: { name: "National network", url: "http://127.0.0.1:9/", query: "", interval: 0, enabled: false } })).id;
    return { admin, komboti, kombotiTemp, ioannina, ioanninaTemp, station, group, series, process, file, image, event, synoptic, slug, source };
  })();
  return made;
}

async function signedIn(browser: Browser, viewport: { width: number; height: number }, username: string): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: test.info().project.use.baseURL });
  await offline(context);
  const page = await context.newPage();
  await logIn(page, username, PASSWORD);
  await expect(page).not.toHaveURL(/\/accounts\/login\//);
  return page;
}

// Each test scans some thirty pages (the API documentation alone is long): minutes on a busy machine
// (the anonymous one took 4 min alone on the 2-core machine with the pages in two languages).
test.describe.configure({ timeout: 480_000 });

test.beforeEach(async ({ context }) => {
  await offline(context);
});

for (const size of SIZES) {
  test.describe(`accessibility at ${size.name} width`, () => {
    test.use({ viewport: size.viewport });

    test(`public pages, as an anonymous visitor (${size.name})`, async ({ page, request }) => {
      const f = await fixture(request);
      const axe = new Scanner(page);

      await visit(page, "/");
      await expect(page.locator(".map-frame")).toHaveAttribute("data-map-state", "ready");
      await axe.scan("home");
      await shot(page, "a11y-home");
      await visit(page, `/?q=${encodeURIComponent("variable:temperature")}`);
      await expect(page.locator(".map-frame")).toHaveAttribute("data-map-state", "ready");
      await page.getByText("How to search").click();
      await axe.scan("search results, with the search help open");
      await visit(page, `/?q=${encodeURIComponent("bbox:21,39")}`);
      await expect(alertBox(page)).toBeVisible();
      await axe.scan("search with a malformed query");
      await axe.visit(`/?q=${encodeURIComponent("no-such-station-anywhere")}`, "search without results");

      await visit(page, `/stations/${f.station}/`);
      await expect(page.locator(".station-map .station-marker")).toBeVisible();
      await axe.scan("station with files, images and events");
      await visit(page, `/stations/${f.komboti}/`);
      await expect(page.locator(".station-map .station-marker")).toBeVisible();
      await axe.scan("demo station");
      await visit(page, `/stations/${f.komboti}/timeseriesgroups/${f.kombotiTemp}/`);
      await expect(page.locator(".chart-box[data-state='ready'] .recharts-line-curve")).toBeVisible();
      await axe.scan("group with its chart");
      await visit(page, `/stations/${f.ioannina}/timeseriesgroups/${f.ioanninaTemp}/`);
      await expect(page.getByText("The data of this time series are not public.")).toBeVisible();
      await axe.scan("group whose data are not public");

      // The older API's pages a browser is given (legacy.md §3).
      await page.goto(`/api/Timeseries/${f.series}/`);
      await axe.scan("older API's series page");
      await page.goto("/api/Station/");
      await axe.scan("older API's station list");

      await axe.visit("/synoptic/", "synoptic groups");
      await visit(page, `/synoptic/${f.slug}/`);
      await expect(page.locator(".synoptic-marker-box")).toHaveCount(3);
      await axe.scan("synoptic group");
      await visit(page, `/synoptic/${f.slug}/stations/${f.station}/`);
      await expect(page.locator(".synoptic-values")).toBeVisible();
      await axe.scan("synoptic station");

      await page.goto("/api/docs/");
      await axe.scan("API documentation");

      await axe.visit("/accounts/login/", "login");
      await page.getByLabel("Username or e-mail address").fill("nobody");
      await page.getByLabel("Password", { exact: true }).fill("wrong-password");
      await page.getByRole("button", { name: "Log in" }).click();
      await expect(alertBox(page)).toBeVisible();
      await axe.scan("login failed");
      await axe.visit("/accounts/password/reset/", "password reset");
      await page.getByLabel("E-mail address").fill("not an address");
      await page.getByRole("button", { name: "Send me a reset link" }).click();
      await axe.scan("password reset with a wrong address");
      await page.goto("/api/auth/password/reset/confirm/MQ/not-a-token/");
      await axe.scan("password reset link invalid");
      // A real link, for the form of the new password.
      const username = unique("a11yreset");
      createUser(username, PASSWORD);
      await visit(page, "/accounts/password/reset/");
      await page.getByLabel("E-mail address").fill(`${username}@example.com`);
      await page.getByRole("button", { name: "Send me a reset link" }).click();
      await expect(page.getByRole("status")).toBeVisible();
      await axe.scan("password reset sent");
      const link = /https?:\/\/\S+\/api\/auth\/password\/reset\/confirm\/\S+\//.exec(await mailTo(`${username}@example.com`))![0];
      await page.goto(new URL(link).pathname);
      await axe.scan("new password form");
      await page.getByLabel("New password", { exact: true }).fill("1234");
      await page.getByLabel("New password again").fill("5678");
      await page.getByRole("button", { name: "Set the password" }).click();
      await axe.scan("new password form with errors");
      await shot(page, "a11y-new-password-errors");
      await page.goto("/api/auth/password/reset/complete/");
      await axe.scan("password set");
      // A site that requires a login sends visitors to its login page first.
      await page.goto(`${process.env.E2E_AUTH_URL}/?q=anything`);
      await expect(page).toHaveURL(/\/accounts\/login\/\?next=/);
      await hydrated(page);
      await axe.scan("login of a site that requires it");

      expect((await page.goto("/stations/999999/"))?.status()).toBe(404);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
      await axe.scan("404");
      await axe.check();
    });

    test(`a logged-in user's pages (${size.name})`, async ({ browser, request }) => {
      const f = await fixture(request);
      const username = unique("a11yuser");
      createUser(username, PASSWORD);
      const page = await signedIn(browser, size.viewport, username);
      const axe = new Scanner(page);

      await visit(page, "/");
      await expect(page.locator(".map-frame")).toHaveAttribute("data-map-state", "ready");
      await axe.scan("home, logged in");
      await axe.visit("/accounts/profile/", "profile");
      await profileWithErrors(page);
      await axe.scan("profile with errors");
      await axe.visit("/manage/", "management home of a user without stations");
      await axe.visit("/manage/synoptic/", "synoptic groups to manage, none yet");
      const forbidden = await page.goto(`/manage/stations/${f.komboti}/`);
      expect(forbidden?.status()).toBe(403);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("You do not have permission to see this page");
      await axe.scan("403");
      await axe.visit("/accounts/logout/", "logout");
      await axe.check();
      await page.context().close();
    });

    test(`management pages, as a superuser (${size.name})`, async ({ browser, request }) => {
      const f = await fixture(request);
      const page = await signedIn(browser, size.viewport, f.admin);
      const axe = new Scanner(page);
      const station = `/manage/stations/${f.station}/`;
      const group = `${station}timeseriesgroups/${f.group}/`;

      await axe.visit("/manage/", "management home with activity");
      await axe.visit(`/manage/?q=${encodeURIComponent("bbox:21")}`, "management home with a malformed search");
      await axe.visit("/manage/stations/new/", "new station");
      await page.getByRole("button", { name: "Create station" }).click();
      await expect(alertBox(page).first()).toContainText("Please correct the errors below");
      await axe.scan("new station with errors");
      await page.getByRole("combobox", { name: "Owner" }).fill("a");
      await expect(page.getByRole("option").first()).toBeVisible();
      await axe.scan("new station, choosing an owner");
      await visit(page, station);
      await expect(page.locator(".picker-frame .leaflet-container")).toBeVisible();
      await axe.scan("station edit");
      await axe.visit(`${station}files/${f.file}/`, "file edit");
      await axe.visit(`${station}images/${f.image}/`, "image edit");
      await axe.visit(`${station}events/${f.event}/`, "event edit");
      await axe.visit(`${station}events/${f.event}/delete/`, "event delete");
      await axe.visit(`${station}delete/`, "station delete");
      await axe.visit(group, "group edit with its series and processes");
      await axe.visit(`${group}delete/`, "group delete");
      await axe.visit(`${group}processes/${f.process}/`, "process edit");
      await axe.visit(`${group}processes/${f.process}/delete/`, "process delete");
      await axe.visit(`${group}timeseries/${f.series}/upload/`, "upload");
      // A file with many bad lines (their list scrolls in its box), then one with long lines.
      const file = page.getByLabel("File", { exact: true });
      const minute = (i: number) => `2025-02-01 ${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`;
      const bad = Array.from({ length: 40 }, (_, i) => `${minute(i)},not-a-number-${i},`).join("\n");
      await file.setInputFiles({ name: "stage.csv", mimeType: "text/csv", buffer: Buffer.from(bad) });
      await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
      await expect(page.locator(".line-errors li").first()).toBeVisible();
      await axe.scan("upload refused, with its problems by line");
      await shot(page, "a11y-upload-refused");
      const good = Array.from({ length: 5 }, (_, i) => `${minute(i)},1.2${i},SUSPECT CHECKED-BY-THE-DUTY-OFFICER-OF-THE-NIGHT-SHIFT-AT-THE-REGIONAL-CENTRE`).join("\n");
      await file.setInputFiles({ name: "stage.csv", mimeType: "text/csv", buffer: Buffer.from(good) });
      await page.getByRole("button", { name: "Check (nothing is stored)" }).click();
      await expect(page.locator(".first-lines")).toBeVisible();
      await axe.scan("upload checked, with its first lines");
      await shot(page, "a11y-upload-checked");
      await axe.visit(`${group}timeseries/${f.series}/delete/`, "series delete");

      await axe.visit("/manage/lookups/", "lookups");
      await axe.visit("/manage/lookups/stationtypes/", "a lookup's list");
      await page.getByRole("link", { name: "Meteorological" }).click();
      await expect(page).toHaveURL(/\/manage\/lookups\/stationtypes\/\d+\/$/);
      await hydrated(page);
      await axe.scan("a lookup's object");
      await axe.visit("/manage/lookups/units/", "units (with variables to pick)");
      await axe.visit("/manage/users/", "users");
      await page.getByRole("link", { name: f.admin }).click();
      await expect(page).toHaveURL(/\/manage\/users\/\d+\/$/);
      await hydrated(page);
      await axe.scan("a user");

      await axe.visit("/manage/synoptic/", "synoptic groups to manage");
      await axe.visit("/manage/synoptic/new/", "new synoptic group");
      await axe.visit(`/manage/synoptic/${f.synoptic}/`, "synoptic group edit");
      await axe.visit(`/manage/synoptic/${f.synoptic}/delete/`, "synoptic group delete");
      await axe.visit("/manage/replication/", "replication");
      await shot(page, "a11y-replication");
      await axe.visit(`/manage/replication/${f.source}/`, "replication source");
      await axe.visit(`/manage/replication/${f.source}/delete/`, "replication source delete");
      await expect(page).toHaveURL(at(`/manage/replication/${f.source}/delete/`));
      await axe.check();
      await page.context().close();
    });
  });
}
