import { describe, expect, it } from "vitest";
import { isSealed, seal, SecretBoxError, unseal } from "@/lib/auth/secret-box";

/** lib/auth/secret-box.ts: AES-256-GCM under a key derived from the secret key and a label. */
const KEY = "one-secret-key-of-an-installation";
const LABEL = "replication source password";

describe("the secret box", () => {
  it("seals to v1: and base64url, never the plaintext, a new nonce each time; unseals to the plaintext", () => {
    const plaintext = "pässwörd with spaces ✓";
    const a = seal(LABEL, plaintext, KEY);
    const b = seal(LABEL, plaintext, KEY);
    expect(a).toMatch(/^v1:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("ssw");
    // 12 bytes of nonce, the ciphertext (as long as the UTF-8 plaintext), 16 bytes of tag.
    expect(Buffer.from(a.slice(3), "base64url")).toHaveLength(12 + Buffer.byteLength(plaintext) + 16);
    expect(isSealed(a)).toBe(true);
    expect(unseal(LABEL, a, KEY)).toBe(plaintext);
    expect(unseal(LABEL, b, KEY)).toBe(plaintext);
  });

  it("keeps the empty string empty, and passes plaintext stored before encryption through", () => {
    expect(seal(LABEL, "", KEY)).toBe("");
    expect(unseal(LABEL, "", KEY)).toBe("");
    expect(isSealed("old-plain-password")).toBe(false);
    expect(unseal(LABEL, "old-plain-password", KEY)).toBe("old-plain-password");
  });

  it("refuses another key, another label and an altered value, naming neither the value nor the key", () => {
    const sealed = seal(LABEL, "the-password", KEY);
    const refusals = [
      () => unseal(LABEL, sealed, "another-key"),
      () => unseal("replication source token", sealed, KEY),
      () => unseal(LABEL, `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}A`, KEY),
      () => unseal(LABEL, "v1:AAAA", KEY),
    ];
    for (const refusal of refusals) {
      let error: unknown;
      try {
        refusal();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SecretBoxError);
      const message = (error as Error).message;
      expect(message).toMatch(/^The stored replication source (password|token) (cannot be decrypted with this ENHYDRIS_SECRET_KEY|is damaged)/);
      for (const leak of ["the-password", sealed, sealed.slice(3, 20), KEY, "another-key"]) expect(message).not.toContain(leak);
    }
  });
});
