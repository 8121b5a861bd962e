import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CATALOGUES, CLIENT_NAMESPACES, decimalIn, MANAGE_CLIENT_NAMESPACES, formatCountIn, LOCALES, localeFromAcceptLanguage, negotiateLocale, translator } from "@/lib/i18n";
import { cookieValue, descrIn } from "@/lib/i18n/locales";
import { returnPath, safeNextPath } from "@/lib/site/paths";

describe("the language of a request (public.md §3)", () => {
  it("takes the account's setting first, then the cookie, then Accept-Language, then English", () => {
    expect(negotiateLocale({ account: "el", cookie: "en", acceptLanguage: "en" })).toBe("el");
    expect(negotiateLocale({ account: "en", cookie: "el", acceptLanguage: "el" })).toBe("en");
    expect(negotiateLocale({ account: "", cookie: "el", acceptLanguage: "en" })).toBe("el");
    expect(negotiateLocale({ account: null, cookie: "en", acceptLanguage: "el" })).toBe("en");
    expect(negotiateLocale({ acceptLanguage: "el-GR,el;q=0.9" })).toBe("el");
    expect(negotiateLocale({})).toBe("en");
  });

  it("ignores languages it does not have, at every step", () => {
    expect(negotiateLocale({ account: "fr", cookie: "xx", acceptLanguage: "de, el;q=0.5" })).toBe("el");
    expect(negotiateLocale({ account: "EL", cookie: "el-GR" })).toBe("en");
    expect(negotiateLocale({ cookie: "", acceptLanguage: "fr-FR, de;q=0.8, *;q=0.5" })).toBe("en");
  });

  it("reads Accept-Language by quality, then order; q=0 refuses a language", () => {
    expect(localeFromAcceptLanguage("en;q=0.5, el;q=0.8")).toBe("el");
    expect(localeFromAcceptLanguage("el, en")).toBe("el");
    expect(localeFromAcceptLanguage("en-GB, el")).toBe("en");
    expect(localeFromAcceptLanguage("EL-gr")).toBe("el");
    expect(localeFromAcceptLanguage("el;q=0, en;q=0.1")).toBe("en");
    expect(localeFromAcceptLanguage("el;q=0")).toBeNull();
    expect(localeFromAcceptLanguage("el;q=2")).toBeNull();
    expect(localeFromAcceptLanguage("garbage;;,")).toBeNull();
    expect(localeFromAcceptLanguage("")).toBeNull();
    expect(localeFromAcceptLanguage(null)).toBeNull();
  });

  it("finds one cookie in a Cookie header", () => {
    expect(cookieValue("csrftoken=a; enhydris_language=el", "enhydris_language")).toBe("el");
    expect(cookieValue("xenhydris_language=el", "enhydris_language")).toBeNull();
    expect(cookieValue(undefined, "enhydris_language")).toBeNull();
  });
});

/** Every key of a catalogue, as "a.b.c", with its value. */
function entries(messages: object, prefix = ""): [string, unknown][] {
  return Object.entries(messages).flatMap(([key, value]) =>
    value !== null && typeof value === "object" ? entries(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value] as [string, unknown]]);
}

describe("the catalogues", () => {
  const keys = (locale: (typeof LOCALES)[number]) => entries(CATALOGUES[locale]).map(([key]) => key).sort();

  it("have the same keys in every language", () => {
    for (const locale of LOCALES) {
      const missing = keys("en").filter((key) => !keys(locale).includes(key));
      const extra = keys(locale).filter((key) => !keys("en").includes(key));
      expect({ locale, missing, extra }).toEqual({ locale, missing: [], extra: [] });
    }
  });

  it("have no empty message, and every message is a string", () => {
    for (const locale of LOCALES) {
      const bad = entries(CATALOGUES[locale]).filter(([, value]) => typeof value !== "string" || value.trim() === "").map(([key]) => key);
      expect({ locale, bad }).toEqual({ locale, bad: [] });
    }
  });

  it("have messages that parse, with the same arguments and tags in every language", () => {
    const args = (text: string) => {
      const found = new Set<string>();
      const walk = (elements: MessageFormatElement[]) => {
        for (const e of elements) {
          if (e.type === TYPE.tag) {
            found.add(`<${e.value}>`);
            walk(e.children);
          } else if (e.type === TYPE.plural || e.type === TYPE.select) {
            found.add(e.value);
            for (const option of Object.values(e.options)) walk(option.value);
          } else if (e.type !== TYPE.literal && e.type !== TYPE.pound) found.add(e.value);
        }
      };
      walk(parse(text));
      return [...found].sort();
    };
    const english = new Map(entries(CATALOGUES.en) as [string, string][]);
    for (const locale of LOCALES) {
      for (const [key, value] of entries(CATALOGUES[locale]) as [string, string][]) {
        expect({ key, locale, args: args(value) }).toEqual({ key, locale, args: args(english.get(key)!) });
      }
    }
  });

  it("translate every message: none of another language is left as the English one", () => {
    // Words that are the same in every language (and the activity summaries' list of counts, "{first}, {rest}").
    const SAME = new Set(["chrome.api", "activityObjects.list"]);
    const english = new Map(entries(CATALOGUES.en));
    for (const locale of LOCALES.filter((l) => l !== "en")) {
      const untranslated = entries(CATALOGUES[locale]).filter(([key, value]) => !SAME.has(key) && value === english.get(key)).map(([key]) => key);
      expect({ locale, untranslated }).toEqual({ locale, untranslated: [] });
    }
  });

  it("translate outside React, with plurals and arguments", () => {
    expect(translator("en", "chrome")("logIn")).toBe("Log in");
    expect(translator("el", "chrome")("logIn")).toBe("Σύνδεση");
    expect(translator("en", "home")("summarySearch", { count: 52560 })).toBe("52,560 stations match the search");
    expect(translator("en", "home")("summaryAll", { count: 1 })).toBe("1 station matches (all stations)");
    expect(translator("en", "home")("summaryAll", { count: 0 })).toBe("No stations match (all stations)");
    expect(translator("el", "home")("summarySearch", { count: 52560 })).toBe("52.560 σταθμοί ταιριάζουν με την αναζήτηση");
  });
});

describe("the namespaces browser components use", () => {
  it("are all sent to the browser (app/layout.tsx's provider; the management pages' in app/manage/layout.tsx)", () => {
    const root = join(__dirname, "..", "..");
    const used = new Map<string, Set<string>>([["site", new Set()], ["manage", new Set()]]);
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name)) {
          const text = readFileSync(path, "utf8");
          if (!/^["']use client["']/m.test(text)) continue;
          const area = /[\\/](app|components)[\\/]manage[\\/]/.test(path) ? "manage" : "site";
          for (const m of text.matchAll(/useTranslations(?:<"(\w+)">|\("(\w+)"\))/g)) used.get(area)!.add(m[1] ?? m[2]);
        }
      }
    };
    walk(join(root, "components"));
    walk(join(root, "app"));
    expect(used.get("site")!.size).toBeGreaterThan(5);
    const site: readonly string[] = CLIENT_NAMESPACES;
    const manage: readonly string[] = [...CLIENT_NAMESPACES, ...MANAGE_CLIENT_NAMESPACES];
    expect([...used.get("site")!].filter((ns) => !site.includes(ns))).toEqual([]);
    expect([...used.get("manage")!].filter((ns) => !manage.includes(ns))).toEqual([]);
  });
});

describe("numbers per language", () => {
  it("writes counts and decimals with the language's separators", () => {
    expect(formatCountIn("en", 52560)).toBe("52,560");
    expect(formatCountIn("el", 52560)).toBe("52.560");
    expect(decimalIn("en", "12.50")).toBe("12.50");
    expect(decimalIn("el", "12.50")).toBe("12,50");
    expect(decimalIn("el", -0.5)).toBe("-0,5");
  });
});

describe("the lookups' descriptions (descr_el)", () => {
  it("shows the Greek description on Greek pages, falling back to descr when it is empty", () => {
    expect(descrIn("el", { descr: "Temperature", descrEl: "Θερμοκρασία" })).toBe("Θερμοκρασία");
    expect(descrIn("el", { descr: "Temperature", descrEl: "" })).toBe("Temperature");
    expect(descrIn("el", { descr: "Temperature" })).toBe("Temperature");
    expect(descrIn("en", { descr: "Temperature", descrEl: "Θερμοκρασία" })).toBe("Temperature");
  });
});

describe("the page the language switcher goes back to", () => {
  it("is the page shown (its Referer, of this host), else the form's next, a path of this site", () => {
    // After the browser's router moved on, the footer's `next` still names the first page.
    expect(returnPath("http://site.example/stations/4/timeseriesgroups/1/?start=2020", "site.example", "/")).toBe("/stations/4/timeseriesgroups/1/?start=2020");
    expect(returnPath("https://other.example/stations/", "site.example", "/synoptic/")).toBe("/synoptic/");
    expect(returnPath(null, "site.example", "/stations/?q=Άρτα")).toBe("/stations/?q=%CE%86%CF%81%CF%84%CE%B1");
    expect(returnPath("not a url", "site.example", "/synoptic/")).toBe("/synoptic/");
    for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example", "", "javascript:alert(1)", null]) {
      expect(returnPath(null, "site.example", next), String(next)).toBe("/");
    }
    // Dot segments that resolve to "//host" (a Location that would leave the site), as next or
    // as the path of this host's Referer; other dot segments resolve.
    for (const next of ["/.//evil.example", "/a/..//evil.example", "/%2e//evil.example", "/%2E%2E//evil.example/x", "/./\\evil.example"]) {
      expect(returnPath(null, "site.example", next), next).toBe("/");
      expect(returnPath(`http://site.example${next}`, "site.example", "/synoptic/"), next).toBe("/");
    }
    expect(returnPath(null, "site.example", "/stations/../synoptic/./")).toBe("/synoptic/");
  });
  it("keeps the login's next on this site through dot segments too", () => {
    for (const next of ["/.//evil.example", "/a/..//evil.example", "/%2e//evil.example"]) expect(safeNextPath(next), next).toBe("/");
    expect(safeNextPath("/stations/4/?q=a b")).toBe("/stations/4/?q=a%20b");
  });
});
