/**
 * The checks' messages on pages in Greek (lib/site/field-errors.ts): every message the shared
 * checks can write (their literals, read from their sources) has a Greek translation, the
 * arguments travel, and English pages and unknown messages stay as they are.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fieldErrorIn, fieldErrorsIn, runMessageIn } from "@/lib/site/field-errors";
import { AGGREGATION_RULES } from "@/lib/processing/types/aggregation";
import { SOURCE_DISABLED } from "@/lib/replication/sources";
import { literalAt, shapes } from "@/tests/support/literal-shapes";

/** The checks shared by the API and the pages whose messages a page may show. */
function checkSources(): string[] {
  const capabilities = readdirSync("lib", { withFileTypes: true }).filter((d) => d.isDirectory()).flatMap((d) =>
    readdirSync(join("lib", d.name)).filter((f) => f === "fields.ts" || f.endsWith("-fields.ts")).map((f) => join("lib", d.name, f)));
  return [...capabilities, "lib/auth/passwords.ts", "lib/auth/captcha.ts", "lib/accounts/accounts.ts", "lib/accounts/users.ts",
    "lib/accounts/registration.ts", "lib/access/requests.ts", "lib/site/forms.ts", "lib/formats/time-step.ts", "lib/formats/date-param.ts", "lib/synoptic/config.ts", "lib/telemetry/config.ts",
    // The processes' rules (the process forms), the replication sources' and the series' uniqueness.
    "lib/processing/types/aggregation.ts", "lib/processing/types/checks.ts", "lib/processing/types/curve-interpolation.ts", "lib/processing/types/fields-kit.ts",
    "lib/processing/processes.ts", "lib/replication/api.ts", "lib/replication/form.ts", "lib/series/writes.ts"];
}

/** The message literals of a source: sentences (a capital or a quoted value first, a full stop last), `${…}` as a sample value. */
function messageLiterals(source: string): string[] {
  const code = source.split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && !line.includes("description:")).join("\n");
  const found = new Set<string>();
  for (const m of code.matchAll(/"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)) {
    const text = (m[1] ?? m[2]).replace(/\$\{[^}]*\}/g, "x7").replace(/\\"/g, '"');
    if (/^(?:[A-Z]|"x7")[^]*\.$/.test(text) && text.includes(" ") && !/^(?:SELECT|UPDATE|INSERT|DELETE)\b/.test(text)) found.add(text);
  }
  return [...found];
}

describe("the checks' messages on pages (public.md §3)", () => {
  it("has a Greek translation of every message the shared checks write", () => {
    const untranslated: string[] = [];
    let count = 0;
    for (const file of checkSources()) {
      for (const message of messageLiterals(readFileSync(file, "utf8"))) {
        count++;
        const greek = fieldErrorIn("el", message);
        if (greek === message || /[a-z]{3,} [a-z]{3,} [a-z]{3,}/.test(greek.replace(/x7|start_date|end_date|all=true/g, ""))) untranslated.push(`${file}: ${message}`);
      }
    }
    expect(count).toBeGreaterThan(40);
    expect(untranslated).toEqual([]);
  });

  it("keeps the arguments and English as it is", () => {
    expect(fieldErrorIn("el", "Ensure this field has no more than 150 characters.")).toBe("Αυτό το πεδίο δεν μπορεί να έχει περισσότερους από 150 χαρακτήρες.");
    expect(fieldErrorIn("el", 'Invalid pk "42" - object does not exist.')).toBe("Μη έγκυρο αναγνωριστικό «42»: δεν υπάρχει τέτοιο αντικείμενο.");
    expect(fieldErrorIn("en", "This field is required.")).toBe("This field is required.");
    expect(fieldErrorsIn("en", { email: ["Enter a valid email address."] })).toEqual({ email: ["Enter a valid email address."] });
    expect(fieldErrorsIn("el", { email: ["Enter a valid email address."], form: ["Your session has ended. Log in again."] }))
      .toEqual({ email: ["Εισαγάγετε μια έγκυρη διεύθυνση e-mail."], form: ["Η συνεδρία σας έληξε. Συνδεθείτε ξανά."] });
  });

  it("writes a time step's message with how to write one, and names a line of thresholds", () => {
    expect(fieldErrorIn("el", '"10 lightyears" is not a valid time step.', "time_step"))
      .toBe("Το «10 lightyears» δεν είναι έγκυρο χρονικό βήμα. Γράψτε έναν αριθμό και μια μονάδα, π.χ. 10min, 1h (μία ώρα) ή 1D (μία ημέρα).");
    expect(fieldErrorIn("el", "This field is required.", "target_time_step")).toMatch(/^Αυτό το πεδίο είναι υποχρεωτικό\. Γράψτε έναν αριθμό/);
    expect(fieldErrorIn("el", "thresholds[1].allowed_diff: A valid number is required.")).toBe("Κατώφλια, γραμμή 2: Απαιτείται έγκυρος αριθμός.");
  });

  it("translates the message about a typed address of an e-mail list, naming the address", () => {
    expect(fieldErrorIn("el", "“bob@”: Enter a valid email address.")).toBe("«bob@»: Εισαγάγετε μια έγκυρη διεύθυνση e-mail.");
    expect(fieldErrorIn("en", "“bob@”: Enter a valid email address.")).toBe("“bob@”: Enter a valid email address.");
  });

  it("names a nested member by its label, keeps a curve's periods for the form, and translates a limit's span", () => {
    expect(fieldErrorIn("el", "lower_bound: This field is required.")).toBe("Κάτω όριο: Αυτό το πεδίο είναι υποχρεωτικό.");
    expect(fieldErrorIn("el", "thresholds: At least one threshold is required.")).toBe("Κατώφλια: Απαιτείται τουλάχιστον ένα κατώφλι.");
    expect(fieldErrorIn("el", 'thresholds: Each delta_t may have one rise bound and one fall bound ("10min" and "600s" are the same duration, both fall bounds (allowed_diff < 0)).'))
      .toBe("Κατώφλια: Κάθε χρονική διαφορά μπορεί να έχει ένα όριο ανόδου και ένα όριο πτώσης (οι «10min» και «600s» είναι η ίδια διάρκεια, και οι δύο με όριο πτώσης, αρνητική μέγιστη μεταβολή).");
    expect(fieldErrorIn("el", "periods[0].points: At least two points are required.")).toBe("periods[0].points: Απαιτούνται τουλάχιστον δύο σημεία.");
    expect(fieldErrorIn("el", "periods[1]: start_date must not be after end_date.")).toBe("periods[1]: Η ημερομηνία έναρξης δεν μπορεί να είναι μετά την ημερομηνία λήξης.");
    expect(fieldErrorIn("el", AGGREGATION_RULES.stepTooLong)).toMatch(/^Το χρονικό βήμα πρέπει να είναι το πολύ \d+D: οι εγγραφές έχουν χρονοσφραγίδες από \d{4}-\d\d-\d\d έως \d{4}-\d\d-\d\d\.$/);
    // The more specific template wins over "… greater than or equal to {n}.".
    expect(fieldErrorIn("el", "Ensure this value is greater than or equal to 0 and less than or equal to 32767.")).toBe("Η τιμή πρέπει να είναι από 0 έως 32767.");
    expect(fieldErrorIn("el", "Ensure this value is greater than or equal to 5.")).toBe("Η τιμή πρέπει να είναι μεγαλύτερη ή ίση με 5.");
    expect(fieldErrorIn("el", SOURCE_DISABLED)).toBe("Η πηγή είναι ανενεργή· ενεργοποιήστε τη για να την εκτελέσετε.");
    expect(fieldErrorIn("el", "This station is not replicated from another instance.")).toBe("Αυτός ο σταθμός δεν είναι αντίγραφο από άλλη εγκατάσταση.");
    expect(fieldErrorIn("en", "lower_bound: This field is required.")).toBe("lower_bound: This field is required.");
  });

  it("leaves a message it does not know in English, in the forms' words", () => {
    expect(fieldErrorIn("el", "Something new went wrong.")).toBe("Something new went wrong.");
    expect(fieldErrorIn("el", "lower_bound must not exceed upper_bound.")).toBe("Lower bound must not exceed upper bound.");
  });
});

describe("the messages of background runs on pages (stored in English)", () => {
  it("has a Greek translation of every message a process run writes", () => {
    const untranslated: string[] = [];
    let count = 0;
    for (const file of ["lib/processing/run.ts", "lib/processing/numerics/aggregation.ts", "lib/processing/numerics/checks.ts", "lib/processing/storable.ts"]) {
      for (const message of messageLiterals(readFileSync(file, "utf8"))) {
        count++;
        const greek = runMessageIn("el", message);
        if (greek === message || /[a-z]{3,} [a-z]{3,} [a-z]{3,}/.test(greek.replace(/x7/g, ""))) untranslated.push(`${file}: ${message}`);
      }
    }
    expect(count).toBeGreaterThan(8);
    expect(untranslated).toEqual([]);
  });

  it("keeps the arguments, translates a nested message, and leaves English and unknown messages as they are", () => {
    expect(runMessageIn("el", "The aggregation would write 900000 intervals, 899000 of them empty because of gaps in the source; at most 100000 empty intervals are written. "
      + "Check the source for records far from the others, or aggregate to a longer time step."))
      .toBe("Η συνάθροιση θα έγραφε 900000 διαστήματα, 899000 από αυτά κενά λόγω κενών στην πηγή· γράφονται το πολύ 100000 κενά διαστήματα. "
        + "Ελέγξτε την πηγή για εγγραφές μακριά από τις υπόλοιπες ή συναθροίστε σε μεγαλύτερο χρονικό βήμα.");
    expect(runMessageIn("el", 'Source time step: "1W" is not a valid time step.')).toBe("Χρονικό βήμα πηγής: Το «1W» δεν είναι έγκυρο χρονικό βήμα.");
    expect(runMessageIn("el", "The run would write a record stamped 2300-01-01 00:00, but records are stamped from 1680-01-01 to 2260-01-01; nothing was written."))
      .toBe("Η εκτέλεση θα έγραφε εγγραφή με χρονοσφραγίδα 2300-01-01 00:00, αλλά οι εγγραφές έχουν χρονοσφραγίδες από 1680-01-01 έως 2260-01-01· δεν γράφτηκε τίποτα.");
    // A replication run's: its source's state, a replaced time zone.
    expect(runMessageIn("el", "Not run: the source is disabled.")).toBe("Δεν εκτελέστηκε: η πηγή είναι ανενεργή.");
    expect(runMessageIn("el", 'station 12: display time zone "Mars/Olympus" is not one of this service\'s; Etc/GMT is used'))
      .toBe("σταθμός 12: η ζώνη ώρας εμφάνισης «Mars/Olympus» δεν είναι από τις ζώνες αυτής της υπηρεσίας· χρησιμοποιείται η Etc/GMT");
    expect(runMessageIn("en", "Nothing to do: no changes since the last run.")).toBe("Nothing to do: no changes since the last run.");
    expect(runMessageIn("el", "database is locked")).toBe("database is locked");
  });

  it("has a Greek translation of every warning a replication run writes", () => {
    const code = readFileSync("lib/replication/run.ts", "utf8");
    // Each `this.warn(…)`; `${row.kind} ${row.remoteId} (here …)` and "the ${kind} ${a.id}" name things of these kinds.
    const warnings = [...code.matchAll(/this\.warn\(/g)].flatMap((m) => shapes(literalAt(code, m.index + m[0].length)!.text));
    const samples = warnings.flatMap((w) => w.startsWith("x7 is no longer")
      ? ["station", "group", "series", "file", "image", "event"].map((kind) => w.replace("x7", `${kind} 4 (here 9)`))
      : w.includes("the x7 x7") ? ["file", "image"].map((kind) => w.replace("the x7 x7", `the ${kind} 4`))
      : [w.replace(/^x7: its records/, "series 4 of station 2: its records")]);
    expect(samples.length).toBeGreaterThan(12);
    const untranslated = samples.filter((w) => { const greek = runMessageIn("el", w); return greek === w || /[a-z]{3,}/i.test(greek.replace(/x7|Etc\/GMT/g, "")); });
    expect(untranslated).toEqual([]);
    expect(runMessageIn("el", "station 3: the file 7 has no content at the source")).toBe("σταθμός 3: το αρχείο 7 δεν έχει περιεχόμενο στην πηγή");
    expect(runMessageIn("el", "series 4 (here 9) is no longer at the source; kept here (prune deletes it)"))
      .toBe("χρονοσειρά 4 (εδώ 9): δεν υπάρχει πια στην πηγή· διατηρείται εδώ (η εκκαθάριση το διαγράφει)");
    expect(runMessageIn("el", "series 5 of station 3: its records were not copied: the source does not let these credentials read them"))
      .toBe("χρονοσειρά 5 του σταθμού 3: οι εγγραφές της δεν αντιγράφηκαν: η πηγή δεν επιτρέπει σε αυτά τα διαπιστευτήρια να τις διαβάσουν");
    expect(runMessageIn("en", "station 3: the file 7 has no content at the source")).toBe("station 3: the file 7 has no content at the source");
  });
});
