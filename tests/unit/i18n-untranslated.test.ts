/**
 * Every page has no untranslated text (public.md §3), checked in the source: no English (or any
 * language's) words on a page that do not come from the message catalogues. The scan
 * (tests/support/untranslated.ts) walks the JSX of app/ and components/ and the HTML that lib/
 * code writes for pages; the API (app/api, lib/api) stays English and is not scanned. The same
 * check on the rendered pages, in Greek: tests/http/languages-pages.test.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLanguageFree, untranslatedIn } from "@/tests/support/untranslated";

const ROOT = join(__dirname, "..", "..");

/**
 * Files still being translated, each with why: the scan skips them. Empty this list as their
 * translations land (the test fails on a listed file that has become clean, so that it is removed).
 */
const PENDING: Record<string, string> = {};

/**
 * Literal text the scan finds that is rightly not translated, per file, each with why. Keep it
 * short: a word a page shows belongs in the catalogues.
 */
const ALLOWED: Record<string, Record<string, string>> = {
  "lib/accounts/reset-pages.ts": {
    "Accept-Language, Cookie": "the pages' Vary header (HTTP header names), not text",
  },
  "app/accounts/register/actions.ts": {
    "Registration is closed.": "the check's English message, shown through fieldErrorIn in the page's language",
    "This field may not be blank.": "the check's English message, shown through fieldErrorIn in the page's language",
  },
  "app/manage/replication/page.tsx": {
    "npm run replicate -- --from https://other.example.org/ [--query &quot;owner:ntua&quot;]": "a command line, in <code>",
  },
  "app/manage/stations/[sid]/timeseriesgroups/[gid]/timeseries/[tid]/upload/page.tsx": {
    "•data/": "an API path, in <code>",
  },
  "components/manage/LocationPicker.tsx": { "•-srids": "an element id" },
  "components/manage/Pickers.tsx": { "•-help•": "element ids", "•-errors": "an element id", "•-help": "an element id" },
  "components/manage/Workbench.tsx": { "SUSPECT": "an example of the flags a user types (flags are data, the same in every language)" },
  "app/language/route.ts": {
    "The form could not be read.": "the plain-text 400 of a switcher post no page sends (a client's mistake), not a page",
    "Unknown language.": "the plain-text 400 of a switcher post no page sends (a client's mistake), not a page",
  },
  "lib/server/serve.ts": {
    "Accept-Language, Cookie": "the refusal pages' Vary header (HTTP header names), not text",
    "Authentication credentials were not provided or are wrong.": "the plain-text 401 of /metrics, for a monitoring system",
    "Method not allowed.": "the plain-text 405 of /metrics, for a monitoring system",
    "Not found.": "the 404 of an undecodable path: the API's DRF detail (JSON) or plain text for a client, never a page",
  },
};

/** The .ts files of lib/ that write HTML for pages (the .ts and .tsx files of app/ and components/ are all scanned). */
const HTML_WRITERS = [
  "lib/site/chrome.ts",
  "lib/frontend/refusals.ts",
  "lib/accounts/reset-pages.ts",
  "lib/server/serve.ts",
  "lib/server/error-shells.ts",
];

/** The source files under a folder of the site (app/api, the API, stays English). */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (path === "app/api") return [];
    return statSync(join(ROOT, path)).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** What a file shows untranslated, less what ALLOWED lets through. */
function untranslated(file: string) {
  return untranslatedIn(file, readFileSync(join(ROOT, file), "utf8")).filter((f) => !(f.text in (ALLOWED[file] ?? {})));
}

const FILES = [...sourceFiles("app"), ...sourceFiles("components"), ...HTML_WRITERS];

describe("the pages' text (public.md §3)", () => {
  it("scans the pages (a scan that finds no file would pass anything)", () => {
    expect(FILES.length).toBeGreaterThan(80);
    for (const file of ["app/page.tsx", "app/stations/[sid]/page.tsx", "components/chart/SeriesChart.tsx", "lib/site/chrome.ts"]) expect(FILES).toContain(file);
  });

  it("comes from the catalogues: no literal words in a page's JSX or HTML", () => {
    const found = FILES.filter((file) => !(file in PENDING)).flatMap(untranslated);
    expect(found.map((f) => `${f.file}:${f.line}: ${f.text}`)).toEqual([]);
  });

  it("lists as pending only files that exist and still have untranslated text", () => {
    const stale = Object.keys(PENDING).filter((file) => !FILES.includes(file) || untranslated(file).length === 0);
    expect(stale).toEqual([]);
  });
});

describe("the scan", () => {
  const scan = (source: string, file = "x.tsx") => untranslatedIn(file, source).map((f) => f.text);

  it("finds text, visible attributes and text-valued expressions in JSX", () => {
    expect(scan(`export const A = () => <div className="page-header" id="x"><h1>Stations</h1><p title="Shown on hover">{t("ok")}</p></div>;`))
      .toEqual(["Stations", "Shown on hover"]);
    expect(scan(`export const A = ({ open }: { open: boolean }) => <button aria-label={open ? "Close" : t("open")} aria-live="polite">{open && "Hide"}{"·"}</button>;`))
      .toEqual(["Close", "Hide"]);
    expect(scan(`export const A = () => <Field label="Name" submit={\`Save \${noun}\`} help={t("help")} name="name" />;`)).toEqual(["Name", "Save •"]);
    expect(scan(`export const metadata = { title: "Terms of use" }; const cols = [{ key: "a", label: "Recorded" }];`)).toEqual(["Terms of use", "Recorded"]);
  });

  it("passes what is not language: symbols, numbers, units, names, code and addresses", () => {
    expect(scan(`export const A = () => <p>{n} m · 12 % → <code>variable:rain</code> CSV, HTS · UTC+2 · Enhydris<a href={\`/stations/\${id}/\`} loginHref={\`/accounts/login/?next=\${x}\`}>←</a></p>;`)).toEqual([]);
    expect(isLanguageFree("(UTC+02:00)")).toBe(true);
    expect(isLanguageFree("E-mail")).toBe(false);
    expect(isLanguageFree("Σταθμοί")).toBe(false);
  });

  it("reads the HTML that .ts files write, and sentences they give as titles", () => {
    expect(scan("const page = `<h1>${t(\"x\")}</h1><p>You may now log in.</p><input placeholder=\"Search\">`; html(body, \"Password set\"); res.setHeader(\"Content-Type\", \"text/html; charset=utf-8\");", "x.ts"))
      .toEqual(["Search", "You may now log in.", "Password set"]);
    expect(scan(`const s = '<html id="__next_error__"'; const e = \`" lang="\${l}"><head>\`;`, "x.ts")).toEqual([]);
  });
});
