import { describe, expect, it } from "vitest";
import { isPossibleLoginName, MAX_LOGIN_NAME, throttleKeys } from "@/lib/auth/throttle";

describe("the login throttle's counters (api.md §12.1)", () => {
  it("count a name longer than any account's against the address only: no key of its size", () => {
    const huge = "A".repeat(1_000_000);
    expect(throttleKeys(huge, "192.0.2.1")).toEqual(["addr:192.0.2.1"]);
    expect(throttleKeys(`${"b".repeat(MAX_LOGIN_NAME)}c`, "192.0.2.1", 7)).toEqual(["user:7", "addr:192.0.2.1"]);
  });

  it("keep a counter per lower-cased name for every name that can log in: usernames and e-mail addresses", () => {
    const email = `${"a".repeat(64)}@${"b".repeat(MAX_LOGIN_NAME - 69)}.ORG`;
    expect(email).toHaveLength(MAX_LOGIN_NAME);
    expect(throttleKeys(email, "192.0.2.1", 3)).toEqual(["user:3", `name:${email.toLowerCase()}`, "addr:192.0.2.1"]);
    expect(throttleKeys("Alice", "::1")).toEqual(["name:alice", "addr:::1"]);
    expect(throttleKeys("", "::1")).toEqual(["addr:::1"]);
  });

  it("measure names in characters, as usernames and addresses are limited", () => {
    // 254 characters outside the BMP are 508 UTF-16 units.
    expect(isPossibleLoginName("😀".repeat(MAX_LOGIN_NAME))).toBe(true);
    expect(isPossibleLoginName("😀".repeat(MAX_LOGIN_NAME + 1))).toBe(false);
    expect(isPossibleLoginName(`${"é".repeat(MAX_LOGIN_NAME - 1)}😀`)).toBe(true);
    expect(isPossibleLoginName("é".repeat(MAX_LOGIN_NAME + 1))).toBe(false);
  });
});
