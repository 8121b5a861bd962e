import { ValidationFailed } from "@/lib/domain/errors";

/**
 * An e-mail list field on a page (a synoptic group's early_warning_emails, a telemetry's
 * alert_emails): a text area with one address per line, which the API's reader takes as a list.
 */

/** The addresses typed one per line (or separated by commas or semicolons). */
export function typedEmails(form: FormData, name: string): string[] {
  const value = form.get(name);
  return (typeof value === "string" ? value : "").split(/[\n,;]+/).map((e) => e.trim()).filter(Boolean);
}

/** The typed addresses in a form body as the API reads the list (an empty value: no addresses). */
export function putEmails(data: FormData, name: string, emails: readonly string[]): void {
  if (emails.length) for (const e of emails) data.append(name, e);
  else data.set(name, "");
}

/**
 * The API names a bad address by its place in the list ("alert_emails[0]: Enter a valid email
 * address."); the form's user typed text, not a list, so the page's message names the address.
 * Anything else is returned as it is.
 */
export function namingAddresses(error: unknown, name: string, emails: readonly string[]): unknown {
  const messages = error instanceof ValidationFailed ? error.fields[name] : undefined;
  if (!messages) return error;
  const place = new RegExp(`^${name}\\[(\\d+)\\]: (.*)$`, "s");
  return new ValidationFailed({
    ...(error as ValidationFailed).fields,
    [name]: messages.map((m) => {
      const match = place.exec(m);
      const address = match ? emails[Number(match[1])] : undefined;
      return address === undefined ? m : `“${address}”: ${match![2]}`;
    }),
  });
}
