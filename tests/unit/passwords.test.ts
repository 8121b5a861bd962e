import { afterEach, describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "@/lib/auth/passwords";
import { parseSettings, reloadSettings, SettingsError } from "@/lib/config";

const original = process.env.ENHYDRIS_PASSWORD_HASH_COST;

afterEach(() => {
  if (original === undefined) delete process.env.ENHYDRIS_PASSWORD_HASH_COST;
  else process.env.ENHYDRIS_PASSWORD_HASH_COST = original;
  reloadSettings();
});

function withCost(cost: string | undefined): void {
  if (cost === undefined) delete process.env.ENHYDRIS_PASSWORD_HASH_COST;
  else process.env.ENHYDRIS_PASSWORD_HASH_COST = cost;
  reloadSettings();
}

describe("password hashes (ENHYDRIS_PASSWORD_HASH_COST)", () => {
  it("use scrypt with N = 2^15 unless set", async () => {
    withCost(undefined);
    expect(await hashPassword("a-pass-word")).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  });

  it("use N = 2^cost when set, and keep verifying the hashes made at another cost", async () => {
    withCost("12");
    const made = await hashPassword("a-pass-word");
    expect(made).toMatch(/^scrypt\$4096\$8\$1\$/);
    withCost("10");
    expect(await hashPassword("a-pass-word")).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword("a-pass-word", made)).toBe(true);
    expect(await verifyPassword("another-pass", made)).toBe(false);
    expect(await verifyPassword("a-pass-word", null)).toBe(false);
  });

  it("refuse a cost outside 10–20, naming the variable", () => {
    for (const cost of ["9", "21", "fifteen", "15.5"]) {
      expect(() => parseSettings({ ENHYDRIS_PASSWORD_HASH_COST: cost }), cost).toThrow(SettingsError);
      expect(() => parseSettings({ ENHYDRIS_PASSWORD_HASH_COST: cost }), cost).toThrow(/ENHYDRIS_PASSWORD_HASH_COST/);
    }
    expect(parseSettings({ ENHYDRIS_PASSWORD_HASH_COST: "20" }).passwordHashCost).toBe(20);
  });
});
