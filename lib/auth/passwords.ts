import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { settings } from "@/lib/config";

/**
 * Password hashing with scrypt (a slow, memory-hard KDF). Stored form: scrypt$N$r$p$salt$hash.
 * N is 2^ENHYDRIS_PASSWORD_HASH_COST (2^15 by default: ~150 ms of one core); a hash is verified
 * with the N it records, so a change of the setting applies to the passwords set after it. The
 * test suites set the lowest cost, as Django's own test settings use a fast hasher: the suites
 * create thousands of users and log in as many times.
 */
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** settings().passwordHashCost;
  const key = await scrypt(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** A hash of a random password, verified against when the user does not exist (same timing). */
let decoy: Promise<string> | undefined;

/** Checks a password in constant time; `stored` null means "no such user" (always false). */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword(randomBytes(16).toString("hex"))));
  const parts = hash.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const expected = Buffer.from(parts[5], "base64");
  const actual = await scrypt(password, Buffer.from(parts[4], "base64"), n, r, p);
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The password rules of api.md §12.4, in order; empty when the password is acceptable. */
export function passwordProblems(password: string, username: string): string[] {
  const problems: string[] = [];
  if ([...password].length < 8) problems.push("This password is too short. It must contain at least 8 characters.");
  if (/^\d+$/.test(password)) problems.push("This password is entirely numeric.");
  if (username && password.toLowerCase() === username.toLowerCase()) problems.push("The password is too similar to the username.");
  return problems;
}
