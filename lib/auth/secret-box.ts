import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { secretKey } from "@/lib/auth/secret";

/**
 * Secrets the service must use again (a replication source's password and token; telemetry
 * passwords later) are stored encrypted: AES-256-GCM under a key derived from
 * ENHYDRIS_SECRET_KEY by HKDF-SHA-256 with a label naming what it protects, so that each use has
 * a key of its own and a database copied without the key reveals nothing.
 *
 * Stored form: `v1:` followed by base64url(nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)). The
 * label is also the authenticated data: a value sealed for one purpose does not open as another.
 * The empty string stays empty (no secret).
 */
const PREFIX = "v1:";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A stored value that cannot be opened: the key has changed since it was sealed, or the value was altered. */
export class SecretBoxError extends Error {}

function key(label: string, secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "enhydris secret-box", `v1 ${label}`, 32));
}

/** Is the stored value sealed (as opposed to plaintext written before encryption)? */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** Encrypts `plaintext` for `label` (a purpose such as "replication-source-password"). */
export function seal(label: string, plaintext: string, secret: string = secretKey()): string {
  if (plaintext === "") return "";
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key(label, secret), nonce);
  cipher.setAAD(Buffer.from(label));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
}

/**
 * The plaintext of a stored value: a sealed one decrypted (SecretBoxError when it does not open:
 * the message names neither the value nor the key), anything else as it is (plaintext stored
 * before encryption, which the next write or the start-up pass seals).
 */
export function unseal(label: string, stored: string, secret: string = secretKey()): string {
  if (!isSealed(stored)) return stored;
  const bytes = Buffer.from(stored.slice(PREFIX.length), "base64url");
  if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new SecretBoxError(`The stored ${label} is damaged.`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key(label, secret), bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(label));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretBoxError(`The stored ${label} cannot be decrypted with this ENHYDRIS_SECRET_KEY (it was encrypted with another key, or altered).`);
  }
}
