import { describe, expect, it } from "vitest";
import { runsAfter, runWords } from "@/components/manage/UploadRuns";
import { translator } from "@/lib/i18n";

/** Which of a group's processes the upload page lists after a store, and how (management.md §2). */
const STORED = Date.parse("2025-03-01T10:00:30Z");
const run = (status: "queued" | "running" | "succeeded" | "failed", finished: string | null, extra: { records_written?: number; error?: string | null } = {}) =>
  ({ status, finished_at: finished, records_written: extra.records_written ?? 0, error: extra.error ?? null });

describe("runsAfter", () => {
  it("pending runs, and runs finished since the store (the Date header has whole seconds); not older ones, disabled or never run processes", () => {
    const listed = [
      { id: 1, enabled: true, last_run: run("queued", null) },
      { id: 2, enabled: true, last_run: run("running", null) },
      { id: 3, enabled: true, last_run: run("succeeded", "2025-03-01T10:00:31Z", { records_written: 24 }) },
      { id: 4, enabled: true, last_run: run("failed", "2025-03-01T10:00:29Z", { error: "No time step." }) },
      { id: 5, enabled: true, last_run: run("succeeded", "2025-03-01T09:59:00Z") },
      { id: 6, enabled: false, last_run: run("queued", null) },
      { id: 7, enabled: true, last_run: null },
    ];
    expect(runsAfter(listed, STORED).map((r) => r.id)).toEqual([1, 2, 3, 4]);
  });

  it("only the processes the upload's records feed: a pending run of another process of the group is not this upload's", () => {
    const listed = [
      { id: 1, enabled: true, last_run: run("queued", null) },
      { id: 2, enabled: true, last_run: run("queued", null) },
      { id: 3, enabled: true, last_run: run("succeeded", "2025-03-01T10:00:31Z") },
    ];
    expect(runsAfter(listed, STORED, new Set([2, 3])).map((r) => r.id)).toEqual([2, 3]);
  });
});

describe("runWords", () => {
  it.each([
    [run("queued", null), "queued"],
    [run("queued", null, { error: "database is locked" }), "queued again after an error: database is locked"],
    [run("running", null), "running…"],
    [run("succeeded", "2025-03-01T10:01:00Z", { records_written: 1 }), "done, 1 record"],
    [run("succeeded", "2025-03-01T10:01:00Z", { records_written: 1051200 }), "done, 1,051,200 records"],
    [run("failed", "2025-03-01T10:01:00Z", { error: "The source time series has no time step." }), "failed: The source time series has no time step."],
  ])("%j", (r, words) => {
    expect(runWords(r, translator("en", "manageSeriesUpload"))).toBe(words);
  });

  it("in Greek", () => {
    const el = translator("el", "manageSeriesUpload");
    expect(runWords(run("succeeded", "2025-03-01T10:01:00Z", { records_written: 1051200 }), el)).toBe("ολοκληρώθηκε, 1.051.200 εγγραφές");
    expect(runWords(run("failed", "2025-03-01T10:01:00Z"), el)).toBe("απέτυχε: χωρίς αιτιολογία");
  });
});
