import { describe, expect, it } from "vitest";
import { plainNumber } from "@/lib/formats/number";

describe("plainNumber", () => {
  it.each([
    [21, "21"],
    [39, "39"],
    [21.06071, "21.06071"],
    [24.001723560948786, "24.001723560948786"],
    [38.85140820210843, "38.85140820210843"],
    [-0.127758, "-0.127758"],
    [1e-7, "0.0000001"],
    [-1.5e-7, "-0.00000015"],
    [1e21, "1000000000000000000000"],
    [1.2345e22, "12345000000000000000000"],
    [-0, "0"],
    [0, "0"],
    [219, "219"],
  ])("%s → %s", (x, expected) => {
    expect(plainNumber(x)).toBe(expected);
    expect(Number(plainNumber(x))).toBe(x === 0 ? 0 : x);
  });
});
