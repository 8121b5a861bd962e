/**
 * The site's stylesheets in every language (public.md §3): a rule must not pick elements by the
 * text of an attribute that is translated (aria-label, title, alt, placeholder, …), or it holds
 * on English pages only: `nav[aria-label="Breadcrumb"] li` missed the Greek trail («Διαδρομή»),
 * whose long names then widened a phone's page. Rules key on classes or data attributes instead.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");

function cssFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? cssFiles(path) : name.endsWith(".css") ? [path] : [];
  });
}

/** The attributes whose values are words of the page's language. */
const TRANSLATED = ["aria-label", "aria-description", "aria-roledescription", "aria-valuetext", "aria-placeholder", "title", "alt", "placeholder", "data-label"];

/** The selectors of a stylesheet that match a translated attribute's value. */
function byTranslatedText(css: string): string[] {
  const rules = css.replace(/\/\*[\s\S]*?\*\//g, "");
  return [...rules.matchAll(/\[\s*([\w-]+)\s*[~|^$*]?=\s*("[^"]*"|'[^']*'|[^\]\s]+)[^\]]*\]/g)]
    .filter((m) => TRANSLATED.includes(m[1].toLowerCase())).map((m) => m[0]);
}

describe("the stylesheets (public.md §3)", () => {
  const files = [...cssFiles("public"), ...cssFiles("components"), ...cssFiles("app")];

  it("pick no element by a translated attribute's text", () => {
    expect(files).toContain("public/site.css");
    expect(files.flatMap((f) => byTranslatedText(readFileSync(join(ROOT, f), "utf8")).map((s) => `${f}: ${s}`))).toEqual([]);
    expect(byTranslatedText('nav[aria-label="Breadcrumb"] li, img[alt=x], .a[data-kind="x"], input[type="text"]')).toEqual(['[aria-label="Breadcrumb"]', "[alt=x]"]);
  });

  it("let the breadcrumb trail's long names wrap, in any language", () => {
    const css = readFileSync(join(ROOT, "public/site.css"), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    const rule = [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)].find((m) => m[1].split(",").some((s) => s.trim() === ".breadcrumbs li"));
    expect(rule?.[2]).toMatch(/overflow-wrap:\s*anywhere/);
    expect(rule?.[2]).toMatch(/min-width:\s*0/);
  });
});
