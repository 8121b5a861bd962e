import { describe, expect, it } from "vitest";
import { scheduleIn, telemetryTypeWords } from "@/app/manage/stations/[sid]/telemetry/words";
import { scheduleText, TELEMETRY_TYPES } from "@/lib/telemetry";

/**
 * The telemetry types' words on the pages (manageOpsTelemetryTypes): in English they are the
 * types' own (the API's, `GET telemetry/types/`), byte for byte; in Greek every one is translated.
 */
describe("the telemetry types' words per language", () => {
  const en = telemetryTypeWords("en");
  const el = telemetryTypeWords("el");
  const fieldsOf = (type: (typeof TELEMETRY_TYPES)[number]) => [...Object.entries(type.fields), ...Object.entries(type.additionalConfig)];

  it("are the types' own in English", () => {
    for (const type of TELEMETRY_TYPES) {
      expect(en.name(type)).toBe(type.name);
      for (const [key, meta] of fieldsOf(type)) expect({ type: type.id, key, ...en.field(type, key, meta) }).toEqual({ type: type.id, key, ...meta });
      expect(en.sensorPrompt(type, '"temperature" (42a)')).toBe(type.sensorPrompt.replace("{sensor_label}", '"temperature" (42a)'));
      expect(en.ignoreSensorPrompt(type)).toBe(type.ignoreSensorPrompt);
    }
  });

  it("are all translated in Greek (the vendors' product names stay)", () => {
    for (const type of TELEMETRY_TYPES) {
      for (const [key, meta] of fieldsOf(type)) {
        const greek = el.field(type, key, meta);
        expect({ type: type.id, key, same: greek.label === meta.label }).toEqual({ type: type.id, key, same: false });
        if (meta.help) expect({ type: type.id, key, same: greek.help === meta.help }).toEqual({ type: type.id, key, same: false });
        expect(greek.required).toBe(meta.required);
      }
      expect(el.sensorPrompt(type, '"x"')).toContain('"x"');
      expect(el.sensorPrompt(type, '"x"')).not.toBe(en.sensorPrompt(type, '"x"'));
      expect(el.ignoreSensorPrompt(type)).not.toBe(type.ignoreSensorPrompt);
    }
    const csv = TELEMETRY_TYPES.find((t) => t.id === "http_csv")!;
    expect(el.name(csv)).toBe("CSV μέσω HTTP");
    expect(el.field(csv, "device_locator", csv.fields.device_locator!).help).toContain("?from={start}");
    const insigh = TELEMETRY_TYPES.find((t) => t.id === "insigh")!;
    expect(el.field(insigh, "device_locator", insigh.fields.device_locator!).help).toBe("Αν μείνει κενό, θα χρησιμοποιηθεί το https://console.insigh.io/mf-rproxy/.");
  });
});

describe("the telemetry's schedule in words", () => {
  it("is lib/telemetry's scheduleText in English", () => {
    for (const [interval, offset] of [[10, 2], [15, 0], [30, 29], [60, 5], [120, 65], [90, 30], [1001, 7], [1439, 1438], [1440, 360], [720, 0]]) {
      expect(scheduleIn("en", interval, offset)).toBe(scheduleText(interval, offset));
    }
  });

  it("is Greek on Greek pages", () => {
    expect(scheduleIn("el", 1440, 360)).toBe("κάθε ημέρα στις 06:00 UTC");
    expect(scheduleIn("el", 60, 5)).toBe("κάθε ώρα από τις 00:05 UTC");
    expect(scheduleIn("el", 180, 0)).toBe("κάθε 3 ώρες από τις 00:00 UTC");
    expect(scheduleIn("el", 10, 2)).toBe("κάθε 10 λεπτά, στο λεπτό 2 κάθε διαστήματος 10 λεπτών από τα μεσάνυχτα UTC");
    expect(scheduleIn("el", 1001, 7)).toBe("κάθε 1001 λεπτά από τις 00:07 UTC");
  });
});
