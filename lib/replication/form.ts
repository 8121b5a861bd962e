import { readSourceInput } from "@/lib/replication/api";
import { parseIntegerValue } from "@/lib/http/fields";
import type { SourceRow, SourceValues } from "@/lib/replication/sources";
import { ValidationFailed } from "@/lib/domain/errors";
import type { FormState, FormValues } from "@/lib/site/form-state";
import { formInput } from "@/lib/site/manage-form";

/**
 * The replication source form of `{site}/manage/replication/` (replication.md §1): read by the
 * API's reader (lib/replication/api.ts), so that the form and `replication/sources/` accept and
 * refuse the same values. Two things the form adds: the interval is typed in a unit of choice
 * (the API's field is seconds), and the password and token are write-only: an edit form shows
 * them empty and keeps the stored ones when they are left so, unless "clear" is ticked.
 */
export const INTERVAL_UNITS = [
  { value: "60", label: "minutes" },
  { value: "3600", label: "hours" },
  { value: "86400", label: "days" },
  { value: "1", label: "seconds" },
];

const UNIT_SECONDS = INTERVAL_UNITS.map((u) => Number(u.value));

/** Write-only fields: never shown back; left empty on an edit, the stored value stays. */
const SECRETS = ["password", "token"] as const;

export const CLEAR_WITH_NEW = "Leave the password and token empty to clear the credentials, or untick this to set new ones.";

/**
 * The API's `interval` (seconds) from the typed number and unit: a whole number times the unit;
 * anything else as typed, so that the API's reader refuses it with its own message.
 */
export function intervalSeconds(typed: string, unit: string): string {
  const n = parseIntegerValue(typed);
  const factor = Number(unit);
  return n === undefined || !UNIT_SECONDS.includes(factor) ? typed : String(n * factor);
}

/** The largest unit that gives a whole number: 3600 s shows as 1 hour. */
function intervalShown(seconds: number): { interval: string; interval_unit: string } {
  const unit = [...UNIT_SECONDS].sort((a, b) => b - a).find((u) => seconds % u === 0 && seconds > 0) ?? 60;
  return { interval: String(seconds / unit), interval_unit: String(unit) };
}

/** What the form opens with: no password or token (write-only). */
export function sourceValues(source: SourceRow | null): FormValues {
  if (!source) return { interval: "0", interval_unit: "60", enabled: "true", prune: "false" };
  return {
    last_modified: source.lastModified?.toISOString() ?? "",
    name: source.name, url: source.url, username: source.username, query: source.query,
    ...intervalShown(source.interval), enabled: String(source.enabled), prune: String(source.prune),
  };
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
};

/** Is the box ticked (a checkbox field sends a hidden "false" and then, ticked, "true"). */
const ticked = (form: FormData, name: string) => form.getAll(name).at(-1) === "true";

/**
 * The source's values from the form, by the API's rules: all of them for a new source; for an
 * edit, every field but a password or token left empty (kept), or none of the three credentials
 * kept when "clear the credentials" is ticked.
 */
export async function readSourceForm(form: FormData, editing: boolean): Promise<Partial<SourceValues>> {
  const data = new FormData();
  for (const [key, value] of form.entries()) if (!SECRETS.includes(key as (typeof SECRETS)[number])) data.append(key, value);
  const clear = editing && ticked(form, "clear_credentials");
  if (clear && SECRETS.some((k) => text(form, k) !== "")) throw ValidationFailed.field("clear_credentials", CLEAR_WITH_NEW);
  for (const key of SECRETS) if (!editing || clear || text(form, key) !== "") data.set(key, text(form, key));
  if (clear) data.set("username", "");
  data.set("interval", intervalSeconds(text(form, "interval"), text(form, "interval_unit")));
  return readSourceInput(formInput(data), editing ? "update" : "create");
}

/** A form's answer without the password and token typed: they are never sent back to the browser, not even after a refusal. */
export function withoutSecrets(state: FormState): FormState {
  const values = { ...state.values };
  for (const key of SECRETS) delete values[key];
  return { ...state, values };
}
