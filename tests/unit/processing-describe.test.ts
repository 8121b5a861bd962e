import { describe, expect, it } from "vitest";
import { describeProcess, stepWords, stepWordsIn } from "@/lib/processing/describe";

/** Processes in words on the group page (processing.md §5). */
describe("describeProcess", () => {
  it("words checks as the specification's example", () => {
    expect(describeProcess({
      type: "checks",
      config: {
        range_check: { lower_bound: 0, upper_bound: 40, soft_lower_bound: 2, soft_upper_bound: 38 },
        rate_of_change_check: { symmetric: true, remove_failing_values: false, thresholds: [{ delta_t: "10min", allowed_diff: 5 }] },
      },
    }, { unit: "°C" })).toBe("Checked: range 0…40 °C, soft 2…38; rate of change 10min 5 °C");
  });

  it("words one-sided soft bounds, a range alone, signed thresholds and removed values", () => {
    const range = (soft_lower_bound: number | null, soft_upper_bound: number | null) => describeProcess({
      type: "checks", config: { range_check: { lower_bound: -10, upper_bound: 50.5, soft_lower_bound, soft_upper_bound }, rate_of_change_check: null },
    }, { unit: "mm" });
    expect(range(null, null)).toBe("Checked: range −10…50.5 mm");
    expect(range(0, null)).toBe("Checked: range −10…50.5 mm, soft from 0");
    expect(range(null, 45)).toBe("Checked: range −10…50.5 mm, soft up to 45");
    expect(describeProcess({
      type: "checks",
      config: {
        range_check: null,
        rate_of_change_check: { symmetric: false, remove_failing_values: true, thresholds: [{ delta_t: "10min", allowed_diff: 2 }, { delta_t: "1h", allowed_diff: -3.5 }] },
      },
    }, { unit: "" })).toBe("Checked: rate of change 10min +2, 1h −3.5, failing values removed");
  });

  it("words aggregations", () => {
    const aggregation = (target_time_step: string, method: "sum" | "mean" | "max" | "min", max_missing: number, resulting_timestamp_offset = "") =>
      describeProcess({ type: "aggregation", config: { target_time_step, method, max_missing, resulting_timestamp_offset } }, { unit: "°C" });
    expect(aggregation("1h", "mean", 2)).toBe("Hourly mean, at most 2 missing");
    expect(aggregation("1D", "sum", 0, "1min")).toBe("Daily sum, no missing values allowed, stamped 1 min earlier");
    expect(aggregation("3h", "max", 1, "-30min")).toBe("3-hour maximum, at most 1 missing, stamped 30 min later");
    expect(aggregation("10min", "min", 0)).toBe("10-minute minimum, no missing values allowed");
    expect(["60min", "24h", "2D", "90min", "H"].map(stepWords)).toEqual(["Hourly", "Daily", "2-day", "90-minute", "Hourly"]);
  });

  it("words curve interpolations with their target group and span", () => {
    expect(describeProcess({
      type: "curve_interpolation", targetGroupId: 7,
      config: { periods: [{ start_date: "2021-01-01", end_date: "2021-12-31", points: [[0, 0], [1, 1]] }, { start_date: "2020-01-01", end_date: "2020-12-31", points: [[0, 0], [1, 2]] }] },
    }, { unit: "m", targetGroupName: "Discharge" })).toBe("Curve interpolation into Discharge: 2 periods, 2020-01-01 to 2021-12-31");
  });

  it("words every type in Greek, numbers with the decimal comma", () => {
    const el = { locale: "el" as const };
    expect(describeProcess({
      type: "checks",
      config: {
        range_check: { lower_bound: -10, upper_bound: 50.5, soft_lower_bound: 2, soft_upper_bound: 38 },
        rate_of_change_check: { symmetric: false, remove_failing_values: true, thresholds: [{ delta_t: "10min", allowed_diff: 2.5 }, { delta_t: "1h", allowed_diff: -3 }] },
      },
    }, { unit: "°C", ...el })).toBe("Έλεγχοι: όρια −10…50,5 °C, χαλαρά όρια 2…38; ρυθμός μεταβολής 10min +2,5 °C, 1h −3 °C, αφαίρεση των τιμών που αποτυγχάνουν");
    const range = (soft_lower_bound: number | null, soft_upper_bound: number | null) => describeProcess({
      type: "checks", config: { range_check: { lower_bound: 0, upper_bound: 1, soft_lower_bound, soft_upper_bound }, rate_of_change_check: null },
    }, { unit: "", ...el });
    expect([range(0.5, null), range(null, 0.5)]).toEqual(["Έλεγχοι: όρια 0…1, χαλαρό κάτω όριο 0,5", "Έλεγχοι: όρια 0…1, χαλαρό άνω όριο 0,5"]);
    const aggregation = (target_time_step: string, method: "sum" | "mean" | "max" | "min", max_missing: number, resulting_timestamp_offset = "") =>
      describeProcess({ type: "aggregation", config: { target_time_step, method, max_missing, resulting_timestamp_offset } }, { unit: "°C", ...el });
    expect(aggregation("1h", "mean", 2)).toBe("Μέσος όρος ανά ώρα, το πολύ 2 ελλείπουσες τιμές");
    expect(aggregation("1D", "sum", 0, "1min")).toBe("Άθροισμα ανά ημέρα, χωρίς ελλείπουσες τιμές, χρονοσφραγίδα 1 λεπτό νωρίτερα");
    expect(aggregation("3h", "max", 1, "-30min")).toBe("Μέγιστο ανά 3 ώρες, το πολύ 1 ελλείπουσα τιμή, χρονοσφραγίδα 30 λεπτά αργότερα");
    expect(aggregation("10min", "min", 32767)).toBe("Ελάχιστο ανά 10 λεπτά, το πολύ 32.767 ελλείπουσες τιμές");
    expect(["60min", "2D", "1M"].map((s) => stepWordsIn("el", s))).toEqual(["ανά ώρα", "ανά 2 ημέρες", "ανά 1M"]);
    const curve = (periods: number, targetGroupName?: string) => describeProcess({
      type: "curve_interpolation", targetGroupId: 7,
      config: { periods: Array.from({ length: periods }, (_, i) => ({ start_date: `${2020 + i}-01-01`, end_date: `${2020 + i}-12-31`, points: [[0, 0], [1, 1]] as [number, number][] })) },
    }, { unit: "m", targetGroupName, ...el });
    expect(curve(1, "Παροχή")).toBe("Παρεμβολή καμπύλης προς Παροχή: 1 περίοδος, 2020-01-01 έως 2020-12-31");
    expect(curve(2)).toBe("Παρεμβολή καμπύλης προς ομάδα 7: 2 περίοδοι, 2020-01-01 έως 2021-12-31");
  });

  it("keeps English counts without thousands separators", () => {
    expect(describeProcess({ type: "aggregation", config: { target_time_step: "1h", method: "mean", max_missing: 32767, resulting_timestamp_offset: "" } }, { unit: "" }))
      .toBe("Hourly mean, at most 32767 missing");
    expect(describeProcess({
      type: "curve_interpolation", targetGroupId: 7,
      config: { periods: [{ start_date: "2020-01-01", end_date: "2020-12-31", points: [[0, 0], [1, 1]] }] },
    }, { unit: "m" })).toBe("Curve interpolation into group 7: 1 period, 2020-01-01 to 2020-12-31");
  });
});
