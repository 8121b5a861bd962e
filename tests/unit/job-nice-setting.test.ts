import { describe, expect, it } from "vitest";
import { parseSettings } from "@/lib/config";

describe("ENHYDRIS_JOB_NICE (the job process's priority)", () => {
  it("is 10 unless set, and takes a nice value from 0 to 19", () => {
    expect(parseSettings({}).jobNice).toBe(10);
    expect(parseSettings({ ENHYDRIS_JOB_NICE: "0" }).jobNice).toBe(0);
    expect(parseSettings({ ENHYDRIS_JOB_NICE: "19" }).jobNice).toBe(19);
  });

  it("refuses anything else, saying what it takes", () => {
    expect(() => parseSettings({ ENHYDRIS_JOB_NICE: "20" })).toThrow('Invalid setting ENHYDRIS_JOB_NICE="20": expected an integer from 0 to 19');
    expect(() => parseSettings({ ENHYDRIS_JOB_NICE: "-5" })).toThrow(/ENHYDRIS_JOB_NICE.*an integer from 0 to 19/);
    expect(() => parseSettings({ ENHYDRIS_JOB_NICE: "low" })).toThrow(/ENHYDRIS_JOB_NICE/);
  });
});
