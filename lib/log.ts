/**
 * Server-side logging that never writes secrets: password hashes, token keys and their hashes,
 * and password fields are masked in logged messages (an ORM error may quote the arguments).
 */
const PATTERNS: [RegExp, string][] = [
  [/scrypt\$[^\s"',}]+/g, "scrypt$[redacted]"],
  [/\b[0-9a-f]{64}\b/g, "[redacted-hash]"],
  [/\b[0-9a-f]{40}\b/g, "[redacted-key]"],
  [/((?:password|new_password[12]|old_password|passwordHash|keyHash|key_hash|secret|token)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1[redacted]"],
];

export function redact(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}\n${error.stack?.split("\n").slice(1, 8).join("\n") ?? ""}`;
  return String(error);
}

export function logError(where: string, error: unknown): void {
  console.error(redact(`${where}: ${describe(error)}`));
}
