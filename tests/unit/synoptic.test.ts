import { describe, expect, it } from "vitest";
import { readSynopticGroup } from "@/lib/synoptic/fields";
import { cpuTime } from "@/tests/support/cpu-time";
import { RequestInput } from "@/lib/http/body";
import { jsonValue, listOf, nestedField, objectOf } from "@/lib/http/nested-fields";
import { number, text } from "@/lib/http/fields";
import { rateOfChangeErrors, stationsErrors, type SynopticSeriesDefinition } from "@/lib/synoptic/config";
import { freshness, lastCommonDate, rateOfChangeFailureAt, roundedValue, valueStatus } from "@/lib/synoptic/status";
import { durationText, warningLine, warningMail, type WarningItem } from "@/lib/synoptic/warnings";
import { z } from "zod";

/**
 * The pure parts of synoptic views (synoptic.md): the last common date, freshness, statuses,
 * the rate-of-change check at the last common date, the words of the warnings, the rules of a
 * definition and the nested-field parsing of its body.
 */
const T = Date.UTC(2015, 9, 22, 13, 20) / 1000; // 2015-10-22 15:20 at UTC+2, the reference's test data

describe("last common date and freshness (as the reference computes them)", () => {
  it("the earliest of the last timestamps; series without records do not count", () => {
    expect(lastCommonDate([T + 600, T, null, T + 1200])).toBe(T);
    expect(lastCommonDate([null, null])).toBeNull();
    expect(lastCommonDate([])).toBeNull();
  });

  it("old only when more than the limit has passed, or there is no date", () => {
    // The reference: data at 14:20 local (13:20Z), limit 60 min: recent at 14:19:59Z, old at 14:20:01Z.
    expect(freshness(T, T + 3599, 3600)).toBe("recent");
    expect(freshness(T, T + 3600, 3600)).toBe("recent");
    expect(freshness(T, T + 3601, 3600)).toBe("old");
    expect(freshness(null, T, 3600)).toBe("old");
  });
});

describe("value status and rounding", () => {
  it("low before high, limits exclusive, a missing value is an error", () => {
    expect(valueStatus(17, 17.1, 30)).toBe("low");
    expect(valueStatus(4.1, null, 4)).toBe("high");
    expect(valueStatus(4, 4, 4)).toBe("ok");
    expect(valueStatus(5, 10, 1)).toBe("low");
    expect(valueStatus(null, 0, 1)).toBe("error");
    expect(valueStatus(NaN, null, null)).toBe("error");
    expect(valueStatus(1e9, null, null)).toBe("ok");
  });

  it("the stored value is compared, the rounded one shown (formats.md §1)", () => {
    expect(valueStatus(3.004, null, 3)).toBe("high");
    expect(roundedValue(3.004, 2)).toBe(3);
    expect(roundedValue(0.125, 2)).toBe(0.12);
    expect(roundedValue(2.675, 2)).toBe(2.67);
    expect(roundedValue(125, -1)).toBe(120);
    expect(roundedValue(null, 2)).toBeNull();
  });
});

describe("rate of change at the last common date", () => {
  const series = (pairs: [number, number][]) => ({ t: Float64Array.from(pairs, (p) => p[0]), v: Float64Array.from(pairs, (p) => p[1]) });

  it("the reference's example: +1.0 in 10min (> 0.5)", () => {
    const { t, v } = series([[T - 600, 16], [T, 17]]);
    expect(rateOfChangeFailureAt(t, v, { symmetric: false, thresholds: [{ delta_t: "10min", allowed_diff: 0.5 }] }, T))
      .toEqual({ index: 1, diff: 1, allowed: 0.5, seconds: 600, implied: false });
  });

  it("records that failed are skipped; the last valid one is compared over the summed thresholds", () => {
    const { t, v } = series([[T - 1200, 15], [T - 600, 16], [T, 17]]);
    expect(rateOfChangeFailureAt(t, v, { symmetric: false, thresholds: [{ delta_t: "10min", allowed_diff: 0.5 }] }, T))
      .toEqual({ index: 2, diff: 2, allowed: 1, seconds: 1200, implied: true });
  });

  it("passes, falls not bounded by rises, symmetric falls, and no record at the date", () => {
    const rise = { symmetric: false, thresholds: [{ delta_t: "10min", allowed_diff: 2 }] };
    let s = series([[T - 600, 5], [T, 6]]);
    expect(rateOfChangeFailureAt(s.t, s.v, rise, T)).toBeNull();
    s = series([[T - 600, 5], [T, -5]]);
    expect(rateOfChangeFailureAt(s.t, s.v, rise, T)).toBeNull();
    expect(rateOfChangeFailureAt(s.t, s.v, { ...rise, symmetric: true }, T)).toEqual({ index: 1, diff: -10, allowed: 2, seconds: 600, implied: false });
    expect(rateOfChangeFailureAt(s.t, s.v, rise, T + 600)).toBeNull();
    expect(rateOfChangeFailureAt(new Float64Array(0), new Float64Array(0), rise, T)).toBeNull();
  });
});

describe("the words of a warning", () => {
  const base: WarningItem = { station: "Komboti", variable: "Air temperature", kind: "low", time: T, value: 17, precision: 1, unit: "", limit: 17.1, fresh: true };

  it("lines as the reference writes them, with the unit when there is one", () => {
    expect(warningLine(base, "Etc/GMT-2")).toBe("Komboti Air temperature 2015-10-22 15:20 17.0 (low limit 17.1)");
    expect(warningLine({ ...base, variable: "Wind (gust)", kind: "high", value: 4.1, limit: 4, unit: "m/s" }, "Etc/GMT-2"))
      .toBe("Komboti Wind (gust) 2015-10-22 15:20 4.1 m/s (high limit 4 m/s)");
    expect(warningLine({ ...base, kind: "rate_of_change", limit: undefined, change: { diff: 1, allowed: 0.5, over: "10min", implied: false } }, "UTC"))
      .toBe("Komboti Air temperature 2015-10-22 13:20 17.0: +1.0 in 10min (> 0.5)");
    expect(warningLine({ ...base, kind: "rate_of_change", limit: undefined, change: { diff: -10, allowed: 2, over: "10min", implied: false } }, "UTC"))
      .toBe("Komboti Air temperature 2015-10-22 13:20 17.0: -10.0 in 10min (< -2)");
    expect(warningLine({ ...base, kind: "rate_of_change", limit: undefined, change: { diff: -3, allowed: -2.5, over: "1h 30min", implied: true } }, "UTC"))
      .toBe("Komboti Air temperature 2015-10-22 13:20 17.0: -3.0 in 1h 30min (< -2.5, thresholds summed)");
  });

  it("the subject names the stations of the new alarms, sorted; ongoing alarms follow", () => {
    const mail = warningMail({
      siteName: "", groupName: "NTUA", zone: "Etc/GMT-2", pageUrl: null,
      items: [base, { ...base, station: "Agios Spyridon", kind: "high", limit: 30, value: 38.5 }, { ...base, station: "Arta", fresh: false }],
    });
    expect(mail.subject).toBe("Enhydris early warning (Agios Spyridon, Komboti)");
    expect(mail.body).toBe([
      'Early warning of the synoptic group "NTUA". Times are in Etc/GMT-2 (UTC+02:00).',
      "",
      "Komboti Air temperature 2015-10-22 15:20 17.0 (low limit 17.1)",
      "Agios Spyridon Air temperature 2015-10-22 15:20 38.5 (high limit 30)",
      "",
      "Still out of bounds since earlier warnings:",
      "Arta Air temperature 2015-10-22 15:20 17.0 (low limit 17.1)",
      "",
    ].join("\n"));
    expect(warningMail({ siteName: "Openmeteo", groupName: "x", zone: "UTC", pageUrl: "https://o.example/synoptic/x/", items: [base] }).body)
      .toMatch(/^Early warning of the synoptic group "x" \(https:\/\/o\.example\/synoptic\/x\/\)\. Times are in UTC \(UTC\)\.\n/);
  });

  it("durations", () => {
    expect([600, 1800, 3600, 5400, 86400, 90600, 45].map(durationText)).toEqual(["10min", "30min", "1h", "1h 30min", "1D", "1D 1h 10min", "45s"]);
  });
});

describe("rules of a definition", () => {
  const entry = (extra: Partial<SynopticSeriesDefinition> = {}): SynopticSeriesDefinition => ({
    timeseries_group: 1, title: "", subtitle: "", low_limit: null, high_limit: null, default_chart_min: null, default_chart_max: null, rate_of_change: null, ...extra,
  });

  it("thresholds", () => {
    expect(rateOfChangeErrors({ symmetric: false, thresholds: [] })).toEqual(["thresholds: At least one threshold is required."]);
    expect(rateOfChangeErrors({ symmetric: false, thresholds: [{ delta_t: "10min", allowed_diff: -1 }, { delta_t: "10min", allowed_diff: 2 }, { delta_t: "1D", allowed_diff: 5 }] })).toEqual([]);
    expect(rateOfChangeErrors({ symmetric: false, thresholds: [{ delta_t: "1D", allowed_diff: 0 }] }))
      .toEqual(["thresholds[0].allowed_diff: Without symmetric thresholds an allowed_diff must not be 0 (a positive one bounds rises, a negative one falls)."]);
    expect(rateOfChangeErrors({ symmetric: false, thresholds: [{ delta_t: "10minutes", allowed_diff: 1 }, { delta_t: "x", allowed_diff: 1 }, { delta_t: "10min", allowed_diff: 1 }, { delta_t: "10min", allowed_diff: 2 }] }))
      .toEqual([
        "thresholds[0].delta_t: Ensure this field has no more than 7 characters.",
        'thresholds[1].delta_t: "x" is not a valid time step.',
        'thresholds: Each delta_t may have one rise bound and one fall bound ("10min" has two rise bounds (allowed_diff > 0)).',
      ]);
  });

  it("each station and group once, limits in order", () => {
    expect(stationsErrors([
      { station: 1, timeseries_groups: [entry(), entry({ low_limit: 2, high_limit: 1 })] },
      { station: 2, timeseries_groups: [entry({ default_chart_min: 1, default_chart_max: 0 })] },
      { station: 1, timeseries_groups: [] },
    ])).toEqual([
      "stations[0].timeseries_groups[1].timeseries_group: This time series group is already shown at this station.",
      "stations[0].timeseries_groups[1]: low_limit must not be greater than high_limit.",
      "stations[1].timeseries_groups[0]: default_chart_min must be less than default_chart_max.",
      "stations[2].station: This station is already in the synoptic group.",
    ]);
    expect(stationsErrors([{ station: 1, timeseries_groups: [entry({ low_limit: 1, high_limit: 1 })] }])).toEqual([]);
  });
});

describe("nested fields", () => {
  const spec = () => ({ name: text({ required: true }), x: number({ nullable: true, default: null }) });

  it("objects and lists name their members in messages", () => {
    expect(objectOf({ x: "a" }, spec(), "[2]")).toEqual({ ok: false, errors: ["[2].name: This field is required.", "[2].x: A valid number is required."] });
    expect(objectOf({ name: "n" }, spec())).toEqual({ ok: true, value: { name: "n", x: null } });
    expect(objectOf("s", spec(), "[0]")).toEqual({ ok: false, errors: ["[0]: Invalid data. Expected a dictionary, but got str."] });
    expect(listOf([{ name: "a" }, 3], (v, at) => objectOf(v, spec(), at))).toEqual({ ok: false, errors: ["[1]: Invalid data. Expected a dictionary, but got int."] });
    expect(listOf(true, (v) => ({ ok: true, value: v }))).toEqual({ ok: false, errors: ['Expected a list of items but got type "bool".'] });
  });

  it("a top-level field takes JSON, or JSON text from a form", () => {
    const field = nestedField("items", (v) => listOf(v, (item, at) => objectOf(item, spec(), at)), () => [], z.array(z.object({})));
    expect(field.parse('[{"name":"a"}]')).toEqual({ ok: true, value: [{ name: "a", x: null }] });
    expect(field.parse([{}])).toEqual({ ok: false, errors: ["items[0].name: This field is required."] });
    expect(field.parse("[")).toEqual({ ok: false, errors: ["Value must be valid JSON."] });
    expect(field.parse("")).toEqual({ ok: false, errors: ["This field may not be null."] });
    expect(jsonValue(" ")).toEqual({ ok: true, value: null });
  });
});

describe("readSynopticGroup on an enormous list", () => {
  it("reads 70,000 stations in a few seconds at most (building their fields per item took 28 s)", async () => {
    const stations = Array.from({ length: 70_000 }, (_, i) => ({ station: i + 1, timeseries_groups: [{ timeseries_group: i + 1, low_limit: i }] }));
    // CPU time, which a busy machine does not stretch as it does the wall-clock time.
    const { result: values, ms } = await cpuTime(() => readSynopticGroup(RequestInput.json({ name: "Big", slug: "big", fresh_time_limit: 60, stations }), "create"));
    expect(ms).toBeLessThan(5_000);
    expect(values.stations).toHaveLength(70_000);
    expect(values.stations![69_999].timeseries_groups[0]).toMatchObject({ timeseries_group: 70_000, low_limit: 69_999, rate_of_change: null });
  });
});
