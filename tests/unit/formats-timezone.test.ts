import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import {
  fixedOffsetLabel,
  fixedOffsetZone,
  invalidTimeZoneMessage,
  isFixedOffset,
  noFixedOffsetMessage,
  resolveTimeZone,
  type TimeZone,
} from "@/lib/formats/timezone";

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;

function zone(name: string): TimeZone {
  const z = resolveTimeZone(name);
  if (z === null) throw new Error(`unknown zone ${name}`);
  return z;
}

describe("resolveTimeZone (formats.md §3.1)", () => {
  it.each([
    "UTC", "Etc/GMT", "Etc/GMT-2", "Europe/Athens", "US/Eastern", "GMT0", "Etc/GMT+12", "Etc/GMT-14",
    "Asia/Kolkata", "Asia/Calcutta", "America/New_York", "EST", "EET", "Europe/Kyiv", "Zulu", "GMT+0",
  ])("accepts %s and keeps the name as sent", (name) => {
    const z = zone(name);
    expect(z.name).toBe(name);
  });

  it("matches case-insensitively and echoes the client's spelling", () => {
    expect(zone("us/eastern").name).toBe("us/eastern");
    expect(zone("ETC/GMT-2").fixedOffsetMinutes).toBe(120);
    expect(zone("europe/ATHENS").fixedOffsetMinutes).toBeNull();
    expect(zone("etc/gmt").name).toBe("etc/gmt");
  });

  it.each([
    "Nowhere/Zone", "", "Europe/Athens ", "Etc/GMT+13", "Etc/GMT-15", "Etc/GMT+01", "GMT+2", "+02:00",
    "+0200", "UTC+2", "PST", "IST", "AET", "SystemV/PST8", "Factory", "Canada/East-Saskatchewan", "Etc/Unknown",
  ])("rejects %j", (name) => {
    expect(resolveTimeZone(name)).toBeNull();
  });

  it("builds the 400 messages", () => {
    expect(invalidTimeZoneMessage("Nowhere/Zone")).toBe('"Nowhere/Zone" is not a valid choice.');
    expect(noFixedOffsetMessage("Europe/Athens")).toBe(
      '"Europe/Athens" has no fixed UTC offset; HTS output needs a zone such as "Etc/GMT-2".',
    );
  });
});

describe("fixed-offset zones (formats.md §3.3)", () => {
  it.each([
    "UTC", "Etc/UTC", "UCT", "Etc/UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu", "GMT", "Etc/GMT",
    "GMT0", "Etc/GMT0", "GMT+0", "Etc/GMT+0", "GMT-0", "Etc/GMT-0", "Greenwich", "Etc/Greenwich", "utc", "zulu",
  ])("%s is +00:00", (name) => {
    const z = zone(name);
    expect(z.fixedOffsetMinutes).toBe(0);
    expect(fixedOffsetLabel(z)).toBe("+0000");
    expect(isFixedOffset(z)).toBe(true);
  });

  it("Etc/GMT±N use the POSIX sign", () => {
    for (let n = 1; n <= 12; n++) expect(zone(`Etc/GMT+${n}`).fixedOffsetMinutes).toBe(-60 * n);
    for (let n = 1; n <= 14; n++) expect(zone(`Etc/GMT-${n}`).fixedOffsetMinutes).toBe(60 * n);
    expect(fixedOffsetLabel(zone("Etc/GMT-2"))).toBe("+0200");
    expect(fixedOffsetLabel(zone("Etc/GMT+5"))).toBe("-0500");
    expect(fixedOffsetLabel(zone("Etc/GMT-14"))).toBe("+1400");
    expect(zone("Etc/GMT-2").offsetMinutesAt(0)).toBe(120);
    expect(zone("Etc/GMT+5").offsetSecondsAt(1e9)).toBe(-18000);
  });

  it.each(["Europe/Athens", "Asia/Kolkata", "Africa/Abidjan", "America/Panama", "EST", "Iceland", "Etc/GMT-2 "])(
    "%j is not fixed-offset",
    (name) => {
      const z = resolveTimeZone(name);
      if (z !== null) {
        expect(z.fixedOffsetMinutes).toBeNull();
        expect(() => fixedOffsetLabel(z)).toThrow();
      }
    },
  );

  it("fixedOffsetZone builds a zone from an offset", () => {
    const z = fixedOffsetZone(180, "UTC+0300");
    expect(z.name).toBe("UTC+0300");
    expect(fixedOffsetLabel(z)).toBe("+0300");
    expect(z.localToUtc(2020, 1, 9, 0, 0, 0)).toBe(utc(2020, 1, 8, 21));
    expect(fixedOffsetLabel(fixedOffsetZone(-330, "x"))).toBe("-0530");
  });
});

describe("offsets and local times", () => {
  it("reads DST offsets", () => {
    const athens = zone("Europe/Athens");
    expect(athens.offsetMinutesAt(utc(2020, 1, 1))).toBe(120);
    expect(athens.offsetMinutesAt(utc(2020, 7, 1))).toBe(180);
    // the transitions of 2020: 2020-03-29T01:00Z and 2020-10-25T01:00Z
    expect(athens.offsetMinutesAt(utc(2020, 3, 29, 0, 59, 59))).toBe(120);
    expect(athens.offsetMinutesAt(utc(2020, 3, 29, 1))).toBe(180);
    expect(athens.offsetMinutesAt(utc(2020, 10, 25, 0, 59, 59))).toBe(180);
    expect(athens.offsetMinutesAt(utc(2020, 10, 25, 1))).toBe(120);
    // local mean time before 1916: +01:34:52
    expect(athens.offsetSecondsAt(utc(1900, 1, 1))).toBe(5692);
    const ny = zone("US/Eastern");
    expect(ny.offsetMinutesAt(utc(2018, 12, 9))).toBe(-300);
    expect(ny.offsetMinutesAt(utc(2018, 7, 9))).toBe(-240);
  });

  it("maps local times, the earlier instant for a repeated time (§3.5)", () => {
    const athens = zone("Europe/Athens");
    expect(athens.localToUtc(2020, 10, 25, 3, 30, 0)).toBe(utc(2020, 10, 25, 0, 30));
    expect(athens.localToUtc(2020, 10, 25, 4, 0, 0)).toBe(utc(2020, 10, 25, 2, 0));
    expect(athens.localToUtc(2020, 10, 25, 2, 59, 59)).toBe(utc(2020, 10, 24, 23, 59, 59));
    expect(athens.localToUtc(2020, 1, 9, 0, 0, 0)).toBe(utc(2020, 1, 8, 22));
    expect(athens.localToUtc(1900, 1, 1, 1, 34, 52)).toBe(utc(1900, 1, 1));
  });

  it("reports skipped local times (§3.5)", () => {
    const athens = zone("Europe/Athens");
    expect(athens.localToUtc(2020, 3, 29, 3, 30, 0)).toBe("nonexistent");
    expect(athens.localToUtc(2020, 3, 29, 3, 0, 0)).toBe("nonexistent");
    expect(athens.localToUtc(2020, 3, 29, 3, 59, 59)).toBe("nonexistent");
    expect(athens.localToUtc(2020, 3, 29, 4, 0, 0)).toBe(utc(2020, 3, 29, 1));
    expect(athens.localToUtc(2020, 3, 29, 2, 59, 59)).toBe(utc(2020, 3, 29, 0, 59, 59));
    // Samoa skipped 2011-12-30 entirely
    const apia = zone("Pacific/Apia");
    expect(apia.localToUtc(2011, 12, 30, 12, 0, 0)).toBe("nonexistent");
  });

  it("fixed zones are plain arithmetic, also for year 1", () => {
    const z = zone("Etc/GMT-1");
    expect(z.localToUtc(2014, 1, 3, 8, 0, 0)).toBe(utc(2014, 1, 3, 7));
    expect(z.localToUtc(1, 1, 1, 1, 0, 0)).toBe(-62135596800);
  });

  it("agrees with luxon on random instants of several DST zones", () => {
    let s = 42;
    const rnd = () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
    for (const name of ["Europe/Athens", "America/New_York", "Australia/Lord_Howe", "America/Sao_Paulo"]) {
      const z = zone(name);
      for (let i = 0; i < 300; i++) {
        const t = Math.floor(utc(1970, 1, 1) + rnd() * (utc(2040, 1, 1) - utc(1970, 1, 1)));
        const off = z.offsetSecondsAt(t);
        expect(off, `${name} ${t}`).toBe(DateTime.fromSeconds(t, { zone: name }).offset * 60);
        const u = z.naiveToUtc(t + off);
        expect(typeof u).toBe("number");
        expect(u as number).toBeLessThanOrEqual(t);
        expect((u as number) + z.offsetSecondsAt(u as number)).toBe(t + off);
      }
    }
  });

  it("caches zones by name", () => {
    expect(resolveTimeZone("Europe/Athens")).toBe(resolveTimeZone("Europe/Athens"));
    expect(resolveTimeZone("Nowhere/Zone")).toBeNull();
    expect(resolveTimeZone("Nowhere/Zone")).toBeNull();
  });
});
