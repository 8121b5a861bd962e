import { describe, expect, it } from "vitest";
import { inFormWords, TIME_STEP_HELP, typedTimeStep, withTypedTimeStep } from "@/lib/site/form-words";
import { zoneChoiceLabel, zoneChoices } from "@/lib/site/time";

/** Issue 36, item 7: the forms' words for the API's messages, time steps as people type them, one zone picker. */
describe("the API's messages in the forms' words", () => {
  it("names the members by their labels, capitalized where a message or a part of it begins", () => {
    expect(inFormWords("The bounds must be in the order lower_bound ≤ soft_lower_bound ≤ soft_upper_bound ≤ upper_bound."))
      .toBe("The bounds must be in the order lower bound ≤ soft lower bound ≤ soft upper bound ≤ upper bound.");
    expect(inFormWords("low_limit must not be greater than high_limit.")).toBe("Low limit must not be greater than high limit.");
    expect(inFormWords("default_chart_min must be less than default_chart_max.")).toBe("Default chart min must be less than default chart max.");
    expect(inFormWords("Line 2: delta_t: \"2x\" is not a valid time step.")).toBe(`Line 2: Time difference: "2x" is not a valid time step. ${TIME_STEP_HELP}`);
    expect(inFormWords("Line 3: allowed_diff: With symmetric thresholds every allowed_diff must be greater than 0."))
      .toBe("Line 3: Largest change: With symmetric thresholds every largest change must be greater than 0.");
    expect(inFormWords('thresholds: Each delta_t may appear only once ("10min" appears twice).'))
      .toBe('Thresholds: Each time difference may appear only once ("10min" appears twice).');
  });

  it("tells a line of the thresholds by its number", () => {
    expect(inFormWords("rate_of_change.thresholds[1].allowed_diff: This field is required.")).toBe("Thresholds, line 2: Largest change: This field is required.");
    expect(inFormWords("thresholds[0]: Ensure this field has no more than 7 characters.")).toBe("Thresholds, line 1: Ensure this field has no more than 7 characters.");
  });

  it("leaves other words alone: names inside other words, messages without names", () => {
    expect(inFormWords("Enter a valid email address.")).toBe("Enter a valid email address.");
    expect(inFormWords("my_low_limit_x stays")).toBe("my_low_limit_x stays");
    expect(inFormWords('"x" is not a valid choice.')).toBe('"x" is not a valid choice.');
  });
});

describe("time steps as people type them", () => {
  it("reads words and spaces as the API's units", () => {
    const cases: [string, string][] = [
      ["10 minutes", "10min"], ["10 min", "10min"], ["10 mins", "10min"], ["1 minute", "1min"], ["10-minute", "10min"], ["minute", "1min"],
      ["1 hour", "1h"], ["2 hours", "2h"], ["3 hrs", "3h"], ["1 H", "1h"], ["hourly", "1h"], ["HOURLY", "1h"],
      ["1 day", "1D"], ["7 days", "7D"], ["daily", "1D"], ["1 month", "1M"], ["monthly", "1M"], ["1 year", "1Y"], ["yearly", "1Y"],
      ["010 minutes", "10min"],
    ];
    for (const [typed, step] of cases) expect(typedTimeStep(typed), typed).toBe(step);
  });

  it("keeps what is already a time step, or cannot be read as one, as typed", () => {
    for (const text of ["10min", "1h", "1D", "M", "", "10 minuts", "10 m", "ten minutes", "1.5 hours", "99999999 minutes"]) {
      expect(typedTimeStep(text), text).toBe(text);
    }
    expect(typedTimeStep("  1h  ")).toBe("1h");
  });

  it("reads a line of thresholds with its time difference in words", () => {
    expect(withTypedTimeStep("10 minutes 7.3")).toBe("10min 7.3");
    expect(withTypedTimeStep("1 hour\t20,5")).toBe("1h\t20,5");
    expect(withTypedTimeStep("hourly, 15")).toBe("1h, 15");
    expect(withTypedTimeStep("10min 7.3")).toBe("10min 7.3");
    expect(withTypedTimeStep("10min\t7,3")).toBe("10min\t7,3");
    expect(withTypedTimeStep("ten minutes 3")).toBe("ten minutes 3");
  });
});

describe("one zone picker", () => {
  it("offers the display zones from west to east, each label distinct", () => {
    const choices = zoneChoices();
    expect(choices.map((c) => c.value)).toEqual([
      ...Array.from({ length: 12 }, (_, i) => `Etc/GMT+${12 - i}`), "UTC", "Etc/GMT", ...Array.from({ length: 14 }, (_, i) => `Etc/GMT-${i + 1}`),
    ]);
    const labels = choices.map((c) => c.label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toContain("UTC");
    expect(labels).toContain("UTC (Etc/GMT)");
    expect(labels).toContain("UTC+02:00 (Etc/GMT-2)");
    expect(labels).toContain("UTC-12:00 (Etc/GMT+12)");
  });

  it("puts the station's zone first, and the zones with summer time for uploads last", () => {
    const choices = zoneChoices({ station: "Etc/GMT-2", summerTime: true });
    expect(choices[0]).toEqual({ value: "Etc/GMT-2", label: "UTC+02:00 (Etc/GMT-2), the station's" });
    expect(choices.filter((c) => c.value === "Etc/GMT-2")).toHaveLength(1);
    expect(choices.slice(-3).map((c) => c.label)).toEqual(["Europe/Athens (with summer time)", "Europe/London (with summer time)", "Europe/Berlin (with summer time)"]);
    expect(new Set(choices.map((c) => c.label)).size).toBe(choices.length);
    expect(zoneChoices({ station: "Mars/Olympus" })[0]).toEqual({ value: "Mars/Olympus", label: "Mars/Olympus, the station's" });
    expect(zoneChoiceLabel("UTC")).toBe("UTC");
  });
});

describe("a time step field's messages", () => {
  it("say how to write a time step, whatever the API's message", () => {
    expect(inFormWords("Ensure this field has no more than 7 characters.", "target_time_step")).toBe(`Ensure this field has no more than 7 characters. ${TIME_STEP_HELP}`);
    expect(inFormWords('"x" is not a valid time step.', "time_step")).toBe(`"x" is not a valid time step. ${TIME_STEP_HELP}`);
    expect(inFormWords("Ensure this field has no more than 7 characters.", "name")).toBe("Ensure this field has no more than 7 characters.");
  });
});
