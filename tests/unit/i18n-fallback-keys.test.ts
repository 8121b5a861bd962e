/**
 * Words a page looks up in the catalogues by a key made of data (public.md §3: "every key exists
 * in both and every page has no untranslated text"): an activity's action, an access request's
 * status in a summary, a replication interval's unit, a run's status, a correction's kind, a
 * lookup's field. Such a lookup shows the data itself, in English, when its key is missing
 * (`known ? t(\`action.${a}\`) : a`), which neither the type check nor the scan of the pages'
 * literal text (tests/unit/i18n-untranslated.test.ts) nor the rendered pages' check of the
 * catalogue's English phrases of two words or more (tests/http/languages-pages.test.ts) can see.
 * So this key scan finds every such lookup in app/ and components/, and checks every value its
 * data can take (read from the code that makes the data) against both catalogues.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ACCESS_STATUSES } from "@/lib/access";
import { ACTIVITY_ACTIONS } from "@/lib/activity";
import { CATALOGUES, type Messages } from "@/lib/i18n";
import { LOOKUP_FORMS } from "@/lib/lookups";
import { INTERVAL_UNITS } from "@/lib/replication/form";
import { activitySummaryIn } from "@/lib/site/field-errors";

const ROOT = join(__dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

function sourceFiles(dir: string, pattern = /\.tsx?$/): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === "generated" || name.endsWith(".d.ts")) return [];
    return statSync(join(ROOT, path)).isDirectory() ? sourceFiles(path, pattern) : pattern.test(name) ? [path] : [];
  });
}

/** The members of a union of string literals (`export type X = "a" | "b";`) declared in a source file. */
function unionOf(file: string, type: string): string[] {
  const m = new RegExp(`type ${type} =([^;]+);`).exec(read(file));
  if (!m) throw new Error(`no type ${type} in ${file}`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
}

/**
 * The actions the services record: every string literal of the `action:` of an entry given to
 * recordActivity/activitySql (both branches of a `cond ? "a" : "b"`).
 */
function recordedActions(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles("lib", /\.ts$/)) {
    const code = read(file);
    if (!/recordActivity\(|activitySql(WithId)?\(|correctionStatements\(/.test(code) || file.endsWith("activity-log.ts")) continue;
    for (const m of code.matchAll(/\baction: ([^,\n]+),/g)) {
      for (const literal of m[1].matchAll(/"([a-z_]+)"/g)) {
        // `note.kind === "upload" ? "upload" : "correct"`: the compared value is no action of its own, but is one here too.
        if (!found.has(literal[1])) found.set(literal[1], file);
      }
    }
  }
  return found;
}

function has(catalogue: object, path: string): string | undefined {
  const value = path.split(".").reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), catalogue);
  return typeof value === "string" ? value : undefined;
}

const GREEK = /\p{Script=Greek}/u;

/**
 * Every lookup with a fallback to the data, as `file prefix`: the catalogue namespace it reads
 * and the values the data can take. A new such lookup must be listed here (the scan finds it).
 */
const LOOKUPS: Record<string, { namespace: keyof Messages; values: () => string[] }> = {
  "components/manage/parts.tsx action": { namespace: "manageParts", values: () => [...ACTIVITY_ACTIONS, ...recordedActions().keys()] },
  "components/manage/fields.tsx intervalUnits": { namespace: "manageFields", values: () => INTERVAL_UNITS.map((u) => u.label) },
  "app/manage/replication/page.tsx runStatus": { namespace: "manageOpsReplication", values: () => unionOf("lib/jobs/queue.ts", "JobStatus") },
  "components/manage/Workbench.tsx kinds": { namespace: "manageSeriesWorkbench", values: () => unionOf("lib/series/corrections.ts", "CorrectionKind") },
  "components/manage/LookupFields.tsx fields": { namespace: "manageLookups", values: () => Object.values(LOOKUP_FORMS).flatMap((f) => f.fields.map((x) => x.name)) },
  "components/manage/LookupFields.tsx help": { namespace: "manageLookups", values: () => Object.values(LOOKUP_FORMS).flatMap((f) => f.fields.filter((x) => x.help).map((x) => x.name)) },
};

/** The lookups of the pages' sources that fall back to the data: `cond ? t(\`prefix.${…}\`) : value`. */
function fallbackLookups(): string[] {
  const found = new Set<string>();
  for (const file of [...sourceFiles("app"), ...sourceFiles("components")]) {
    for (const m of read(file).matchAll(/\?\s*t\w*\(`([\w.]+)\.\$\{[^`]*`\)\s*:\s*[\w.]+/g)) found.add(`${file} ${m[1]}`);
  }
  return [...found].sort();
}

describe("lookups by a key made of data (public.md §3)", () => {
  it("are all known here: the scan finds each, and no other", () => {
    expect(fallbackLookups()).toEqual(Object.keys(LOOKUPS).sort());
  });

  it("have every value the data can take in both catalogues, in Greek in the Greek one", () => {
    const missing: string[] = [];
    for (const [lookup, { namespace, values }] of Object.entries(LOOKUPS)) {
      const prefix = lookup.split(" ")[1];
      const all = [...new Set(values())];
      expect(all.length, lookup).toBeGreaterThan(1);
      for (const value of all) {
        const en = has(CATALOGUES.en[namespace], `${prefix}.${value}`);
        const el = has(CATALOGUES.el[namespace], `${prefix}.${value}`);
        if (en === undefined) missing.push(`en ${namespace}.${prefix}.${value} (${lookup})`);
        if (el === undefined || !GREEK.test(el)) missing.push(`el ${namespace}.${prefix}.${value} (${lookup}): ${el}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("the activity log's actions (components/manage/parts.tsx)", () => {
  it("are the actions the services record, each with its word in both catalogues", () => {
    const recorded = recordedActions();
    // The scan reads the services (a scan that finds nothing would pass anything).
    for (const action of ["create", "change", "delete", "upload", "approve", "deny", "expire", "fetch", "run", "reset"]) expect(recorded.has(action), action).toBe(true);
    expect([...recorded.keys()].filter((a) => !(ACTIVITY_ACTIONS as readonly string[]).includes(a)).map((a) => `${a} (${recorded.get(a)})`)).toEqual([]);
    expect(ACTIVITY_ACTIONS.filter((a) => !recorded.has(a))).toEqual([]);
    for (const action of ACTIVITY_ACTIONS) {
      expect(CATALOGUES.en.manageParts.action[action], action).toBeTruthy();
      expect(CATALOGUES.el.manageParts.action[action], action).toMatch(GREEK);
    }
  });
});

describe("an access request's status in an activity summary", () => {
  it("has both translations, and a summary naming it is Greek on a Greek page", () => {
    for (const status of ACCESS_STATUSES) {
      expect(has(CATALOGUES.en.activityObjects, status), status).toBe(status);
      expect(has(CATALOGUES.el.activityObjects, status), status).toMatch(GREEK);
      for (const summary of [
        `Withdrew the ${status} access request to the data of station "Komboti"`,
        `Withdrew the ${status} access request to the data of station "Komboti" (the access ended)`,
      ]) {
        const greek = activitySummaryIn("el", summary);
        expect(greek.replace("Komboti", ""), summary).not.toMatch(/[a-z]{3,}/i);
        expect(greek).toContain(has(CATALOGUES.el.activityObjects, status));
      }
    }
  });
});
