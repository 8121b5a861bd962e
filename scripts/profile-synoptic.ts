// tsx scripts/profile-synoptic.ts [postgres-url] — times evaluateSynopticGroup of a group of 300 stations × 4 series (as npm run bench makes it).
import { mkdtempSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findAuthUser } from "@/lib/auth/users";
import { reloadSettings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { records } from "@/lib/records";
import { createSynopticGroup, evaluateSynopticGroup, findSynopticGroup, latestJson } from "@/lib/synoptic";
import { group, series, station, unit, user, variable } from "../tests/support/fixtures";

/** With PROFILE_OUT=file.cpuprofile: a CPU profile of the evaluations and latest/ (not of the set-up). */
async function startProfiler(): Promise<{ stop(): Promise<void> } | null> {
  const out = process.env.PROFILE_OUT;
  if (!out) return null;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<{ profile?: object }>((resolve, reject) => session.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r as { profile?: object }))));
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 100 });
  await post("Profiler.start");
  return {
    async stop() {
      const { profile } = await post("Profiler.stop");
      writeFileSync(out, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function main() {
  const url = process.argv[2] ?? `file:${join(mkdtempSync(join(tmpdir(), "prof-")), "s.db")}`;
  await migrate(parseDatabaseUrl(url));
  console.error(url);
  process.env.DATABASE_URL = url;
  reloadSettings();
  const [variableId, unitId] = [await variable(), await unit()];
  const day = Date.UTC(2025, 5, 1) / 1000;
  const defs = [];
  const targets: number[] = [];
  for (let s = 0; s < 300; s++) {
    const st = await station();
    const groups = [];
    for (let k = 0; k < 4; k++) {
      const g = await group(st, { variableId, unitId, precision: 2 });
      const ts = await series(g, { type: "Initial", timeStep: "10min" });
      if (s === 0) targets.push(ts);
      await records().write(ts, {
        timestamps: Float64Array.from({ length: 144 }, (_, i) => day + i * 600),
        values: Float64Array.from({ length: 144 }, (_, i) => Number((10 + k + Math.sin(i / 10)).toFixed(2))),
        flags: new Array(144).fill(""),
      }, { mode: "append", validate: () => [] });
      groups.push({ timeseries_group: g, low_limit: 9.5, high_limit: 12.5 });
    }
    defs.push({ station: st, timeseries_groups: groups });
  }
  const admin = await findAuthUser((await user({ superuser: true })).id);
  const id = await createSynopticGroup(admin, { name: "Bench", slug: "bench", display_timezone: "Etc/GMT-2", fresh_time_limit: 3600, early_warning_emails: [], stations: defs } as never);
  const profiler = await startProfiler();
  const times: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < 60; i++) {
    await records().write(targets[0], { timestamps: Float64Array.of(day + (144 + i) * 600), values: Float64Array.of(i % 2 ? 11 : 13), flags: [""] }, { mode: "append", validate: () => [] });
    const t = performance.now();
    const c = process.cpuUsage();
    await evaluateSynopticGroup(id);
    const cpu = process.cpuUsage(c);
    if (i >= 5) {
      times.push(performance.now() - t);
      cpus.push((cpu.user + cpu.system) / 1000);
    }
  }
  // latest/ of the group as an anonymous user sees it (the service, without HTTP).
  const synopticGroup = (await findSynopticGroup(id))!;
  const latest: number[] = [];
  const latestCpu: number[] = [];
  for (let i = 0; i < 40; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    JSON.stringify(await latestJson(synopticGroup, null));
    const cpu = process.cpuUsage(c);
    if (i >= 5) {
      latest.push(performance.now() - t);
      latestCpu.push((cpu.user + cpu.system) / 1000);
    }
  }
  await profiler?.stop();
  latest.sort((a, b) => a - b);
  latestCpu.sort((a, b) => a - b);
  console.log(`latest/ of the group (service and JSON.stringify): median ${latest[latest.length >> 1].toFixed(1)} ms, min ${latest[0].toFixed(1)} ms; CPU median ${latestCpu[latestCpu.length >> 1].toFixed(1)} ms`);
  times.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  console.log(`evaluation of a group of 1,200 series after a one-record upload: median ${times[times.length >> 1].toFixed(1)} ms, min ${times[0].toFixed(1)} ms (${times.length} runs); CPU median ${cpus[cpus.length >> 1].toFixed(1)} ms`);
  await closeDb();
}
main().catch((e) => { console.error(e); process.exit(1); });
