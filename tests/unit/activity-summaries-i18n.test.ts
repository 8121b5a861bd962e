/**
 * Activity summaries on pages in Greek (lib/site/field-errors.ts, activitySummaryIn): every shape
 * of summary the services write (read from their sources, each `${…}` as a sample value, both
 * branches of a `cond ? "…" : "…"`) and every name they give an object has a translation; English
 * pages and unknown summaries stay as they are.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { activitySummaryIn } from "@/lib/site/field-errors";
import { contentsText } from "@/lib/stations/contents";
import { literalAt, shapes } from "@/tests/support/literal-shapes";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** The summaries a source writes: after `summary:` and `did:`, and the shapes of `changeSummary(what, fields)`. */
function summaryShapes(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/(?:summary:|did:|\? changeSummary\(before!.*\n\s*:|return)\s*(?=[`"](?:[A-Z]|\$\{note))/g)) {
    const literal = literalAt(code, m.index + m[0].length);
    if (!literal || (m[0] === "return" && !literal.text.startsWith("`Changed"))) continue;
    // `…` + `…` + `…`: the parts' shapes, each with each.
    let parts = shapes(literal.text);
    for (let end = literal.end, plus = /^\s*\+\s*(?=`)/.exec(code.slice(end)); plus; plus = /^\s*\+\s*(?=`)/.exec(code.slice(end))) {
      const next = literalAt(code, end + plus[0].length)!;
      parts = parts.flatMap((p) => shapes(next.text).map((n) => p + n));
      end = next.end;
    }
    found.push(...parts);
  }
  for (const m of code.matchAll(/changeSummary\((`|[a-zA-Z])/g)) {
    const start = m.index + "changeSummary(".length;
    const what = m[1] === "`" ? shapes(literalAt(code, start)!.text) : ["x7"];
    if (/function changeSummary/.test(code.slice(Math.max(0, m.index - 9), m.index + 14))) continue;
    found.push(...what.flatMap((w) => [`Changed ${w}: name, altitude`, `Changed ${w} (nothing changed)`]));
  }
  return found;
}

/** The names the services give objects (`const groupName = … => \`…\``), each as written in "Created …". */
function nameShapes(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/(?:const (?:groupName|seriesName|sourceName|describe|stationNamed|who) = [^\n]*?=>\s*\n?\s*|function processName[^{]*\{\s*return\s*)(?=`)/g)) {
    found.push(...shapes(literalAt(code, m.index + m[0].length)!.text).map((s) => `Created ${s}`));
  }
  for (const m of code.matchAll(/noun: "([^"]+)"/g)) found.push(`Created ${m[1]} "Komboti"`);
  return found;
}

/** A word of English left in a translation (the samples' values, "UTC" and "e-mail" aside). */
const ENGLISH_LEFT = /[a-z]{3,}/i;

describe("activity summaries on pages (stored in English)", () => {
  it("has a Greek translation of every summary the services write and every name they give", () => {
    const files = sourceFiles("lib").filter((f) => /recordActivity\(|activitySql(WithId)?\(|did: `/.test(readFileSync(f, "utf8")) && !f.endsWith("activity-log.ts"));
    expect(files.length).toBeGreaterThan(10);
    const untranslated: string[] = [];
    let count = 0;
    for (const file of files) {
      const code = readFileSync(file, "utf8");
      for (const summary of [...summaryShapes(code), ...nameShapes(code)].map((s) => s.replace("{id}", "7"))) {
        count++;
        // A correction's "did" is its summary's first part.
        const whole = /^[A-Z][a-z]+ (?!station|time|the|a |access)/.test(summary) && file.includes("lib/series/")
          && !/^(Created|Deleted|Changed)/.test(summary) ? `${summary} (2020-01-01 00:00 to 2020-02-01 00:00 UTC+02:00) of time series #3 of time series group "Rain" (correction #7)` : summary;
        const greek = activitySummaryIn("el", whole);
        if (process.env.SHOW_SHAPES) console.log(`${whole}\n  → ${greek}`);
        if (greek === whole || ENGLISH_LEFT.test(greek.replace(/x7|name, altitude|Komboti|Rain|UTC|e-mail/g, ""))) untranslated.push(`${file}: ${whole} → ${greek}`);
      }
    }
    expect(count).toBeGreaterThan(50);
    expect(untranslated).toEqual([]);
  });

  it("translates the objects, the counts and the ranges a summary names, and keeps English and unknown summaries", () => {
    expect(activitySummaryIn("el", 'Changed station "Komboti": name, altitude')).toBe('Αλλαγή: σταθμός "Komboti" (πεδία: name, altitude)');
    expect(activitySummaryIn("el", `Deleted station "Komboti" with ${contentsText({ groups: 1, series: 2, records: 1200, files: 3 })}`))
      .toBe('Διαγραφή: σταθμός "Komboti", μαζί με 1 ομάδα χρονοσειρών, 2 χρονοσειρές, 1.200 εγγραφές, 3 αρχεία');
    expect(activitySummaryIn("el", 'Created time series Initial 10min #5 of time series group "Rain"'))
      .toBe('Δημιουργία: χρονοσειρά Initial 10min #5 (ομάδα χρονοσειρών "Rain")');
    expect(activitySummaryIn("el", 'Uploaded 1 record (2020-01-01 00:00 to 2020-01-01 00:00 UTC+02:00, append) to time series #5 of time series group "Rain" (correction #9)'))
      .toBe('Ανέβασμα: 1 εγγραφή (2020-01-01 00:00 έως 2020-01-01 00:00 UTC+02:00, append) στη χρονοσειρά #5 της ομάδας χρονοσειρών "Rain" (διόρθωση #9)');
    expect(activitySummaryIn("el", "Queued a run (dry, pruning) of replication source #2 (https://example.org/)"))
      .toBe("Προγραμματισμός εκτέλεσης (δοκιμαστική, με εκκαθάριση): πηγή αντιγραφής #2 (https://example.org/)");
    expect(activitySummaryIn("el", 'Configured telemetry (Meteoview2, every 10 minutes, at minute 3 of each 10-minute slot from midnight UTC) of station "Komboti"'))
      .toBe('Ρύθμιση τηλεμετρίας (Meteoview2, κάθε 10 λεπτά, στο λεπτό 3 κάθε διαστήματος 10 λεπτών από τα μεσάνυχτα UTC) του σταθμού "Komboti"');
    expect(activitySummaryIn("el", 'Withdrew the pending access request to the data of station "Komboti"'))
      .toBe('Απόσυρση αιτήματος πρόσβασης (σε εκκρεμότητα) στα δεδομένα: σταθμός "Komboti"');
    expect(activitySummaryIn("en", 'Created station "Komboti"')).toBe('Created station "Komboti"');
    expect(activitySummaryIn("el", "Something else happened")).toBe("Something else happened");
  });
});
