import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { resolveTimeZone } from "@/lib/formats/timezone";
import { withSession } from "@/lib/telemetry/driver";
import { readingsToRecords } from "@/lib/telemetry/readings";
import { meteoview2 } from "@/lib/telemetry/types/meteoview2";
import { driverContext, telemetryConfig } from "@/tests/support/telemetry-drivers";

let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill("SIGKILL");
  child = null;
});

/** Starts serve.ts and resolves with what it printed once it printed the wizard's values. */
function serve(args: string[]): Promise<{ output: () => string }> {
  const proc = spawn("node_modules/.bin/tsx", ["--tsconfig", "tsconfig.json", "tests/support/fake-vendors/serve.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  child = proc;
  let output = "";
  return new Promise((resolve, reject) => {
    proc.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("as time passes.")) resolve({ output: () => output });
    });
    proc.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    proc.on("exit", (code) => reject(new Error(`serve.ts exited (${code}): ${output}`)));
  });
}

const field = (output: string, label: string) => new RegExp(`^  ${label}:\\s+(.*)$`, "m").exec(output)?.[1] ?? "";

describe("the demo vendor (serve.ts)", () => {
  it("serves a MeteoView2 that the meteoview2 type reads with what it prints", async () => {
    const { output } = await serve(["meteoview2", "--port", "0", "--days", "2", "--station", "777"]);
    const printed = output();
    expect(printed).toContain("ENHYDRIS_OUTBOUND_ALLOW=127.0.0.1");
    expect(field(printed, "Time zone of the timestamps")).toBe("Europe/Athens");
    const config = telemetryConfig({
      deviceLocator: field(printed, "Meteoview API URL"),
      username: field(printed, "Email"),
      password: field(printed, "API key"),
      remoteStationId: "777",
      dataTimezone: "Europe/Athens",
    });
    const { stations, sensors, batch } = await withSession(meteoview2, config, driverContext({ timeoutMs: 10_000 }), async (s) => ({
      stations: await s.listStations(),
      sensors: await s.listSensors(),
      batch: await s.readingsAfter("42a", Date.now() / 1000 - 86400),
    }));
    expect(stations).toContainEqual({ id: "777", name: "Hobbiton" });
    expect(sensors).toEqual([{ id: "42a", name: "temperature" }, { id: "43b", name: "humidity" }]);
    const { records } = readingsToRecords(batch, resolveTimeZone("Europe/Athens")!, Date.now() / 1000 - 86400);
    // A day of 10-minute readings (the first and the last may or may not fall within it).
    expect(records.timestamps.length).toBeGreaterThanOrEqual(143);
    expect(records.timestamps.length).toBeLessThanOrEqual(145);
    for (const v of records.values) expect(v).toBeGreaterThan(0);
    child!.kill("SIGTERM");
    // "close", not "exit": the last lines it printed may still be in the pipe when it exits.
    await new Promise((r) => child!.once("close", r));
    expect(output()).toMatch(/Stopped after \d+ requests\./);
  }, 60_000);

  it("refuses an unknown type with its usage", async () => {
    await expect(serve(["nosuchvendor"])).rejects.toThrow(/unknown type "nosuchvendor"[\s\S]*usage: tsx tests\/support\/fake-vendors\/serve.ts <addupi\|meteoview2\|influxdb\|insigh\|enhydris\|http_csv>/);
  }, 60_000);
});
