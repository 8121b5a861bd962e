import { describe, expect, it } from "vitest";
import { invalidTimeStepMessage, isValidTimeStep, timeStepToMinutesMonths } from "@/lib/formats/time-step";

describe("time steps (formats.md §4)", () => {
  it.each(["", "10min", "5min", "H", "1h", "3h", "2H", "D", "2D", "M", "3M", "Y", "2Y", "1min", "9999min", "999999D"])(
    "%j is valid",
    (s) => expect(isValidTimeStep(s)).toBe(true),
  );

  it.each(["0min", "10 min", "T", "W", "A", "ME", "1Q", "100000min", "01min", "min0", "10MIN", "1d", "1y", "m",
    " H", "H ", "-1H", "1.5H", "10minutes", "1HH", "1m", "١H"])("%j is invalid", (s) => {
    expect(isValidTimeStep(s)).toBe(false);
  });

  it.each([
    ["10min", [10, 0]], ["30min", [30, 0]], ["H", [60, 0]], ["1h", [60, 0]], ["2H", [120, 0]], ["3h", [180, 0]],
    ["D", [1440, 0]], ["2D", [2880, 0]], ["M", [0, 1]], ["3M", [0, 3]], ["Y", [0, 12]], ["2Y", [0, 24]],
  ] as const)("%s → %j", (s, mm) => {
    expect(timeStepToMinutesMonths(s)).toEqual(mm);
  });

  it("maps the empty and invalid strings to null", () => {
    expect(timeStepToMinutesMonths("")).toBeNull();
    expect(timeStepToMinutesMonths("1Q")).toBeNull();
    expect(timeStepToMinutesMonths("100000min")).toBeNull();
  });

  it("builds the error message", () => {
    expect(invalidTimeStepMessage("1Q")).toBe('"1Q" is not a valid time step.');
  });
});
