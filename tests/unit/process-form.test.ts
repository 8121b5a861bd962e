import { describe, expect, it } from "vitest";
import { cells, lineMessages } from "@/lib/processing/form";
import { fieldErrorsIn } from "@/lib/site/field-errors";
import { cpuTime } from "@/tests/support/cpu-time";

/**
 * The process forms' reference-style fields (management.md §2): spreadsheet rows of curve points
 * and `10min 7.3` threshold lines, and the API's messages about them told by line number.
 */
function form(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

describe("cells: a row pasted from a spreadsheet or typed", () => {
  it.each([
    ["1.5\t2.25", ["1.5", "2.25"]],
    ["1,5\t2,25", ["1.5", "2.25"]],
    [" 0,3 \t 12 ", ["0.3", "12"]],
    ["1,5;2,25", ["1.5", "2.25"]],
    ["1.5; 2.25", ["1.5", "2.25"]],
    ["1.5, 2.25", ["1.5", "2.25"]],
    ["1.5 2.25", ["1.5", "2.25"]],
    ["1.5,2.25,7", ["1.5", "2.25", "7"]],
    ["10min 7.3", ["10min", "7.3"]],
    ["10min\t7,3", ["10min", "7.3"]],
  ])("%j → %j", (line, expected) => {
    expect(cells(line)).toEqual(expected);
  });
});

describe("lineMessages: the API's messages about typed lines, by line number as the user sees them", () => {
  it("in Greek, after the page translated the messages (as a process form's action does)", () => {
    const typed = form({
      type: "curve_interpolation", rate_thresholds: "10min 7.3\n\n1h\n",
      period_0_start_date: "2020-01-01", period_0_end_date: "2020-12-31", period_0_points: "0\t0\n\nabc",
      period_1_start_date: "2021-01-01", period_1_end_date: "2020-06-01", period_1_points: "0 0\n1 1",
    });
    const shown = (errors: Record<string, string[]>) => lineMessages(fieldErrorsIn("el", errors), typed, "el");
    expect(shown({
      periods: [
        "periods[0].points[1]: A point is a pair of numbers [x, y].",
        "periods[1]: start_date must not be after end_date.",
        "periods[1].start_date: Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
        "periods[0] overlaps periods[1].",
      ],
    })).toEqual({
      periods: [
        "Περίοδος 1, γραμμή 3: Ένα σημείο είναι ένα ζεύγος αριθμών [x, y].",
        "Περίοδος 2: Η ημερομηνία έναρξης δεν μπορεί να είναι μετά την ημερομηνία λήξης.",
        "Περίοδος 2, Ημερομηνία έναρξης: Η ημερομηνία έχει λάθος μορφή. Χρησιμοποιήστε τη μορφή ΕΕΕΕ-ΜΜ-ΗΗ (YYYY-MM-DD).",
        "Η περίοδος 1 επικαλύπτεται με την περίοδο 2.",
      ],
    });
    const checks = form({ type: "checks", rate_thresholds: "10min 7.3\n\n1h\n" });
    expect(lineMessages({ rate_of_change_check: ["thresholds[1].allowed_diff: Απαιτείται έγκυρος αριθμός."] }, checks, "el"))
      .toEqual({ rate_of_change_check: ["Γραμμή 3: Μέγιστη μεταβολή: Απαιτείται έγκυρος αριθμός."] });
  });

  it("threshold lines, counting empty ones", () => {
    const typed = form({ type: "checks", rate_thresholds: "10min 7.3\n\n2x 5\n1h\n1h 3\n" });
    expect(lineMessages({
      rate_of_change_check: [
        'thresholds[1].delta_t: "2x" is not a valid time step.',
        "thresholds[2].allowed_diff: This field is required.",
        'thresholds: Each delta_t may appear only once ("1h" appears twice).',
      ],
      range_check: ["lower_bound: This field is required."],
    }, typed)).toEqual({
      rate_of_change_check: [
        'Line 3: delta_t: "2x" is not a valid time step.',
        "Line 4: allowed_diff: This field is required.",
        'thresholds: Each delta_t may appear only once ("1h" appears twice).',
      ],
      range_check: ["lower_bound: This field is required."],
    });
  });

  it("curve points and periods, numbered as the form's period blocks (empty blocks are not sent)", () => {
    const typed = form({
      type: "curve_interpolation",
      period_0_start_date: "", period_0_end_date: "", period_0_points: "",
      period_1_start_date: "2020-01-01", period_1_end_date: "2020-12-31", period_1_points: "0\t0\n\nabc\n2\t3",
      period_2_start_date: "2020-06-01", period_2_end_date: "2021-12-31", period_2_points: "0 0\n1 1",
    });
    expect(lineMessages({
      periods: [
        "periods[0].points[1]: A point is a pair of numbers [x, y].",
        "periods[1].start_date: Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
        "periods[0] overlaps periods[1].",
        "periods[1].points: At least two points are required.",
        "periods[0]: start_date must not be after end_date.",
        "Value must be valid JSON.",
      ],
    }, typed)).toEqual({
      periods: [
        "Period 2, line 3: A point is a pair of numbers [x, y].",
        "Period 3, start_date: Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
        "Period 2 overlaps period 3.",
        "Period 3, points: At least two points are required.",
        "Period 2: start_date must not be after end_date.",
        "Value must be valid JSON.",
      ],
    });
  });

  it("a message for each of 20,000 bad point lines, told by line in well under a second (each used to re-read the text area: minutes)", async () => {
    const typed = form({ type: "curve_interpolation", period_0_start_date: "2020-01-01", period_0_end_date: "2020-01-02", period_0_points: "x\n\n".repeat(20_000) });
    const errors = { periods: Array.from({ length: 20_000 }, (_, k) => `periods[0].points[${k}]: A point is a pair of numbers [x, y].`) };
    // CPU time, which a busy machine does not stretch as it does the wall-clock time.
    const { result, ms } = await cpuTime(() => lineMessages(errors, typed));
    expect(ms).toBeLessThan(1_000);
    const told = result.periods!;
    expect(told[0]).toBe("Period 1, line 1: A point is a pair of numbers [x, y].");
    expect(told[19_999]).toBe("Period 1, line 39999: A point is a pair of numbers [x, y].");
  });
});
