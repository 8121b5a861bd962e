import { describe, expect, it } from "vitest";
import type { ProcessConfig } from "@/lib/processing/config";
import { processesFedBy, type SeriesInfo } from "@/lib/processing/series";

/** Which processes records written into a series run (processing.md §2), as the upload page lists them (management.md §2). */
const G = 1;
const seriesOf = (id: number, type: number, timeStep = "10min", name = ""): SeriesInfo => ({ id, groupId: G, type, timeStep, name, publiclyAvailable: true });
const INITIAL = seriesOf(10, 1);
const CHECKED = seriesOf(11, 2);
const HOURLY = seriesOf(12, 4, "1h", "Mean");
const DAILY = seriesOf(13, 4, "1D", "Sum");
const OTHER_GROUP_INITIAL: SeriesInfo = { ...seriesOf(20, 1), groupId: 2 };

const checks: ProcessConfig = { type: "checks", config: { range_check: null, rate_of_change_check: null } } as unknown as ProcessConfig;
const hourly: ProcessConfig = { type: "aggregation", config: { target_time_step: "1h", method: "mean", max_missing: 0, resulting_timestamp_offset: "" } };
const daily: ProcessConfig = { type: "aggregation", config: { target_time_step: "1D", method: "sum", max_missing: 0, resulting_timestamp_offset: "" } };
const curve: ProcessConfig = { type: "curve_interpolation", config: { periods: [] }, targetGroupId: 2 };
const p = (id: number, definition: ProcessConfig, enabled = true) => ({ id, groupId: G, enabled, definition });

describe("processesFedBy", () => {
  const all = [INITIAL, CHECKED, HOURLY, DAILY, OTHER_GROUP_INITIAL];
  const processes = [p(1, checks), p(2, hourly), p(3, daily), p(4, curve)];

  it("an upload to Initial runs the checks, and through their Checked series the aggregations and the curve", () => {
    expect(processesFedBy(INITIAL.id, processes, all)).toEqual([1, 2, 3, 4]);
  });

  it("an upload to Checked does not run the checks", () => {
    expect(processesFedBy(CHECKED.id, processes, all)).toEqual([2, 3, 4]);
  });

  it("an upload to an Aggregated series runs nothing", () => {
    expect(processesFedBy(HOURLY.id, processes, all)).toEqual([]);
  });

  it("a disabled process is not run, nor what only it would feed", () => {
    expect(processesFedBy(INITIAL.id, [p(1, checks, false), p(2, hourly)], all)).toEqual([]);
  });

  it("without a Checked series, aggregations read Initial", () => {
    expect(processesFedBy(INITIAL.id, [p(2, hourly)], [INITIAL, HOURLY])).toEqual([2]);
  });
});
