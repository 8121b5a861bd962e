import { type Locale, messagesOf, translator } from "@/lib/i18n";
import type { FieldMeta, telemetryType } from "@/lib/telemetry";

type TelemetryType = NonNullable<ReturnType<typeof telemetryType>>;

/**
 * The telemetry types' words as the pages show them, in the page's language: the type's name,
 * its fields' labels and help, the sensor step's question. The catalogue
 * (`manageOpsTelemetryTypes`) holds them per type (`types.<id>.<field>`), the fields most types
 * share under `shared`; a word the catalogue lacks (a type added later) is the type's own,
 * English. `GET telemetry/types/` keeps the types' own words (the API stays English).
 */
export interface TypeWords {
  name(type: TelemetryType): string;
  /** A connection field (device_locator, username, …) or a key of additional_config. */
  field(type: TelemetryType, key: string, own: FieldMeta): FieldMeta;
  sensorPrompt(type: TelemetryType, sensorLabel: string): string;
  ignoreSensorPrompt(type: TelemetryType): string;
}

type Catalogue = { [key: string]: string | Catalogue };

export function telemetryTypeWords(locale: Locale): TypeWords {
  const words = messagesOf(locale).manageOpsTelemetryTypes as unknown as Catalogue;
  const t = translator(locale, "manageOpsTelemetryTypes");
  const format = (path: string, values: Record<string, string> = {}) => t(path as Parameters<typeof t>[0], values);
  const has = (path: string) => typeof path.split(".").reduce<string | Catalogue | undefined>((node, k) => (node && typeof node === "object" ? node[k] : undefined), words) === "string";
  /** The type's own entry, else the shared one, else null. */
  const find = (type: TelemetryType, key: string) => (has(`types.${type.id}.${key}`) ? `types.${type.id}.${key}` : has(`shared.${key}`) ? `shared.${key}` : null);
  return {
    name: (type) => (has(`names.${type.id}`) ? format(`names.${type.id}`) : type.name),
    field(type, key, own) {
      const label = find(type, `${key}.label`);
      const help = own.help ? find(type, `${key}.help`) : null;
      // A help that names the type's default address ("If this is left blank, https://… will be used.").
      const url = /https?:\/\/\S+?(?=\s|$)/.exec(own.help)?.[0] ?? "";
      return { ...own, label: label ? format(label) : own.label, help: help ? format(help, { url }) : own.help };
    },
    sensorPrompt(type, sensorLabel) {
      const key = find(type, "sensorPrompt");
      return key ? format(key, { sensor_label: sensorLabel }) : type.sensorPrompt.replace("{sensor_label}", sensorLabel);
    },
    ignoreSensorPrompt(type) {
      const key = find(type, "ignoreSensorPrompt");
      return key ? format(key) : type.ignoreSensorPrompt;
    },
  };
}

/**
 * The telemetry's schedule in words (lib/telemetry's scheduleText, in the page's language):
 * "every 10 minutes, at minute 2 of each 10-minute slot from midnight UTC", "every day at 06:00 UTC".
 */
export function scheduleIn(locale: Locale, interval: number, offset: number): string {
  const t = translator(locale, "manageOpsTelemetry");
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
  if (interval === 1440) return t("scheduleDaily", { time: hhmm(offset) });
  if (interval % 60 === 0) return t("scheduleHours", { hours: interval / 60, time: hhmm(offset) });
  // Written as numbers are in the field (no thousands separator).
  if (interval < 60) return t("scheduleSlot", { interval: String(interval), offset: String(offset) });
  return t("scheduleMinutes", { interval: String(interval), time: hhmm(offset) });
}
