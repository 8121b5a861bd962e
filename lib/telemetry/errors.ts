/**
 * The one error of telemetry drivers (the reference's TelemetryError): a message fit for the
 * telemetry's log and for the 400 of the discover endpoint, never carrying a secret.
 */

export class TelemetryError extends Error {
  override readonly name = "TelemetryError";

  /**
   * @param stop why no further request of the same session is worth sending (a fetch then skips
   *   its remaining sensors, lib/telemetry/fetch.ts): "no-answer" when the vendor did not answer at
   *   all (a timeout, a connection refused or reset, a name that does not resolve, a TLS failure:
   *   lib/telemetry/http.ts), "time" when the session's time is up (RequestBudget); null for an
   *   answer that was wrong (an HTTP error, something that cannot be read), which concerns the
   *   request that got it only.
   */
  constructor(message: string, readonly stop: "no-answer" | "time" | null = null) {
    super(message);
  }
}

/** Secrets shorter than this are not searched for: a password "ab" would blank every "ab". */
const MIN_SECRET_LENGTH = 3;

/**
 * The text with every occurrence of each secret (as it is, and URL-encoded, as it travels in a
 * query string or a form) replaced by "***".
 */
export function redact(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text;
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(new URLSearchParams({ s: secret }).toString().slice(2));
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so that a secret containing another is replaced whole.
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join("***");
  return out;
}
