import { describe, expect, it } from "vitest";
import { redact } from "@/lib/observability/log";

describe("redact", () => {
  it("masks password hashes, keys and password fields", () => {
    const text = 'data: { password: "scrypt$32768$8$1$abc$def", keyHash: "' + "a".repeat(64) + '" } key=' + "b".repeat(40)
      + ' {"new_password1":"hunter22","old_password":"x"}';
    const out = redact(text);
    expect(out).not.toMatch(/scrypt\$32768/);
    expect(out).not.toContain("a".repeat(64));
    expect(out).not.toContain("b".repeat(40));
    expect(out).not.toContain("hunter22");
    expect(out).toContain("[redacted]");
  });

  it("leaves ordinary text alone", () => {
    expect(redact("GET /api/stations/4/: unexpected error: TypeError: x is undefined")).toBe("GET /api/stations/4/: unexpected error: TypeError: x is undefined");
  });
});
