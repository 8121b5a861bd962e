/**
 * The engines complete over 1,051,200 ten-minute records (two years) with typed arrays and no
 * object per record. No timing assertion here; the measured times are in the commit message.
 */
import { describe, expect, it } from "vitest";
import { aggregateSeries } from "@/lib/processing/numerics/aggregation";
import { runChecks, type ChecksConfig } from "@/lib/processing/numerics/checks";
import { EMPTY, type RecordBatch } from "@/lib/processing/numerics/series";

const N = 1_051_200;
const START = Date.UTC(2020, 0, 1) / 1000;

function tenMinuteSeries(): RecordBatch {
  const timestamps = new Float64Array(N);
  const values = new Float64Array(N);
  const flags = new Array<string>(N).fill("");
  let seed = 1;
  for (let i = 0; i < N; i++) {
    timestamps[i] = START + i * 600;
    seed = (seed * 16807) % 2147483647;
    values[i] = 15 + 10 * Math.sin(i / 72) + (seed / 2147483647 - 0.5) * 4 + (i % 9973 === 0 ? 30 : 0);
  }
  return { timestamps, values, flags };
}

describe("the engines over 1,051,200 ten-minute records", () => {
  const source = tenMinuteSeries();

  it("aggregate to hourly means", () => {
    const hourly = aggregateSeries({ target_time_step: "1h", method: "mean", max_missing: 0, resulting_timestamp_offset: "" }, source, "10min", 0);
    // the first interval holds only 00:00 and the last lacks 24:00: both emptied and dropped
    expect(hourly.timestamps.length).toBe(N / 6 - 1);
    expect(hourly.timestamps[0]).toBe(START + 3600);
    expect(hourly.flags[0]).toBe("");
  });

  it("run the range and rate-of-change checks", () => {
    const config: ChecksConfig = {
      range_check: { lower_bound: -10, upper_bound: 60, soft_lower_bound: 0, soft_upper_bound: 40 },
      rate_of_change_check: {
        symmetric: true,
        remove_failing_values: false,
        thresholds: [
          { delta_t: "10min", allowed_diff: 5 },
          { delta_t: "1h", allowed_diff: 10 },
          { delta_t: "3h", allowed_diff: 20 },
        ],
      },
    };
    const checked = runChecks(config, source, EMPTY, -Infinity);
    expect(checked.timestamps.length).toBe(N);
    expect(checked.flags.filter((f) => f.includes("TEMPORAL")).length).toBeGreaterThan(0);
  });
});
