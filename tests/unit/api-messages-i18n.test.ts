/**
 * The API's refusals that the workbench and the upload page show, in Greek (public.md §3):
 * messages made by the real checks (the upload's parser and its storage checks) and the
 * corrections' messages read from their sources, each translated with no English left; English
 * pages, and a message no template knows, as the API wrote them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { appendErrors, insertErrors, parseUpload, type UploadParsed } from "@/lib/formats/upload";
import { BOUNDS_CHANGED, CHANGED_OUTSIDE_HISTORY } from "@/lib/series/correct";
import { apiMessageIn } from "@/lib/site/field-errors";

const athens = resolveTimeZone("Europe/Athens")!;
/** English left in a translation: three English words in a row (the arguments aside). */
const english = (text: string) => /[a-z]{3,} [a-z]{3,} [a-z]{3,}/.test(text.replace(/"[^"]*"|start_date|end_date/g, ""));

function refusals(text: string): string[] {
  const parsed = parseUpload(text, athens);
  return parsed.ok ? [] : parsed.errors;
}

describe("the API's refusals on the workbench and the upload page", () => {
  it("translates every kind of the upload's line messages, the line named in Greek", () => {
    const messages = [
      ...refusals("2025-01-01 00:00,1,\nnot a time,1,\n2025-01-01 00:20,abc,\n2025-01-01 00:30,1,2,3\n2025-01-01 00:40,1,\u0001\n2025-03-30 03:30,1,\n1500-01-01 00:00,1,\n"),
      ...refusals("Timezone=Nowhere/Land\n\n2025-01-01 00:00,1,\n"),
      ...refusals("Version=2\n2025-01-01 00:00,1,\n"),
      ...refusals(`2025-01-01 00:00,1,${"F".repeat(1001)}\n`),
      ...refusals("2025-01-01 00:00,1,\n2025-01-01 00:00,2,\n"),
    ];
    const parsed = parseUpload("2025-01-01 00:00,1,\n2025-01-01 00:10,2,\n", athens) as UploadParsed;
    messages.push(...appendErrors(parsed, parsed.timestamps[1]), ...insertErrors(parsed, [parsed.timestamps[0]]));
    expect(messages.length).toBeGreaterThanOrEqual(10);
    const left = messages.map((m) => [m, apiMessageIn("el", m)]).filter(([m, greek]) => greek === m || !greek.startsWith("γραμμή ") || english(greek));
    expect(left).toEqual([]);
    expect(apiMessageIn("el", 'line 2: invalid timestamp "not a time"')).toBe('γραμμή 2: μη έγκυρη χρονοσφραγίδα "not a time"');
    expect(apiMessageIn("el", "line 3: 2025-01-01T00:00:00+02:00 is not later than the last stored record (2025-01-01T00:10:00+02:00)"))
      .toBe("γραμμή 3: η 2025-01-01T00:00:00+02:00 δεν είναι μεταγενέστερη της τελευταίας αποθηκευμένης εγγραφής (2025-01-01T00:10:00+02:00)");
  });

  it("translates the corrections' refusals, as their sources write them", () => {
    const source = readFileSync("lib/series/correct.ts", "utf8");
    const literals = [...source.matchAll(/"(There is no record[^"]*)"/g)].map((m) => m[1]);
    expect(literals).toHaveLength(2);
    const messages = [
      ...literals, BOUNDS_CHANGED, CHANGED_OUTSIDE_HISTORY,
      "Correction 4 was already reverted by correction 6.",
      "Correction 7 changed the same records after correction 4 and is not reverted; revert it first.",
      "Corrections 5, 6 and 7 changed the same records after correction 4 and are not reverted; revert them first.",
      "The value at 2025-01-01T00:00:00Z is not a finite number.",
    ];
    const left = messages.map((m) => [m, apiMessageIn("el", m)]).filter(([m, greek]) => greek === m || english(greek));
    expect(left).toEqual([]);
    expect(apiMessageIn("el", "Corrections 5, 6 and 7 changed the same records after correction 4 and are not reverted; revert them first."))
      .toBe("Οι διορθώσεις 5, 6 και 7 άλλαξαν τις ίδιες εγγραφές μετά τη διόρθωση 4 και δεν έχουν αναιρεθεί· αναιρέστε τες πρώτα.");
  });

  it("translates a field's message as the checks' table does, and leaves English pages and unknown messages alone", () => {
    expect(apiMessageIn("el", "amount: This field is required.")).toBe("amount: Αυτό το πεδίο είναι υποχρεωτικό.");
    expect(apiMessageIn("en", 'line 2: invalid timestamp "x"')).toBe('line 2: invalid timestamp "x"');
    expect(apiMessageIn("el", "Something no template knows.")).toBe("Something no template knows.");
  });
});
