import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLayers } from "@/scripts/check-layers.mjs";

/** A small tree in the project's layout, with the given files. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  roots.push(root);
  return root;
}
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A sound tree: kernel db, capabilities stations and series (series uses stations' face), a page. */
const SOUND = {
  "lib/db/index.ts": "export const db = () => 1;\n",
  "lib/stations/stations.ts": 'import { db } from "@/lib/db";\nexport const station = () => db();\n',
  "lib/stations/index.ts": 'export { station } from "./stations";\n',
  "lib/series/series.ts": 'import { station } from "@/lib/stations";\nexport const series = () => station();\n',
  "lib/series/index.ts": 'export { series } from "./series";\n',
  "app/page.tsx": 'import { series } from "@/lib/series";\nexport default function Page() { return series(); }\n',
};

describe("the layer check (npm run lint)", () => {
  it("passes a tree whose layers hold", () => {
    expect(checkLayers(tree(SOUND))).toEqual([]);
  });

  it("fails on a cycle between capabilities introduced on purpose, naming both edges", () => {
    const problems = checkLayers(tree({
      ...SOUND,
      "lib/stations/stations.ts": 'import { db } from "@/lib/db";\nimport { series } from "@/lib/series";\nexport const station = () => db() + series();\n',
    }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("a cycle between folders: lib/series, lib/stations");
    expect(problems[0]).toContain("lib/stations → lib/series (lib/stations/stations.ts:2)");
    expect(problems[0]).toContain("lib/series → lib/stations (lib/series/series.ts:1)");
  });

  it("does not count type-only imports in cycles", () => {
    expect(checkLayers(tree({
      ...SOUND,
      "lib/stations/stations.ts": 'import { db } from "@/lib/db";\nimport type { series } from "@/lib/series";\nexport const station = (): ReturnType<typeof series> => db();\n',
    }))).toEqual([]);
  });

  it("fails when the kernel imports a capability", () => {
    const problems = checkLayers(tree({ ...SOUND, "lib/db/index.ts": 'import { station } from "@/lib/stations";\nexport const db = () => 1;\nstation;\n' }));
    expect(problems.some((p: string) => p.startsWith("lib/db/index.ts:1: the kernel (lib/db) imports a capability"))).toBe(true);
  });

  it("fails on a deep import past a capability's face", () => {
    const problems = checkLayers(tree({ ...SOUND, "app/page.tsx": 'import { series } from "@/lib/series/series";\nexport default function Page() { return series(); }\n' }));
    expect(problems).toEqual([expect.stringContaining("app/page.tsx:1: imports @/lib/series/series past the face of lib/series")]);
  });

  it("fails when a capability imports a transport, or a page the database", () => {
    const problems = checkLayers(tree({
      ...SOUND,
      "lib/api/routes.ts": 'import { series } from "@/lib/series";\nexport const routes = [series];\n',
      "lib/series/series.ts": 'import { station } from "@/lib/stations";\nimport { routes } from "@/lib/api/routes";\nexport const series = () => station() + routes.length;\n',
      "components/Thing.tsx": 'import { db } from "@/lib/db";\nexport const Thing = () => db();\n',
    }));
    expect(problems).toContainEqual(expect.stringContaining("lib/series/series.ts:2: a capability (lib/series) imports a transport"));
    expect(problems).toContainEqual(expect.stringContaining("components/Thing.tsx:1: a page or component imports @/lib/db"));
  });

  it("fails when a transport could query the database itself, and lets it use the kernel's database state and administration", () => {
    const kernel = {
      "lib/db/index.ts": "export const db = () => 1;\nexport const Prisma = {};\nexport const closeDb = () => 0;\nexport type Tx = number;\n",
      "lib/db/status.ts": 'import { db } from "@/lib/db";\nexport const poolUse = () => db();\n',
      "lib/records/index.ts": "export const records = () => 1;\nexport const closeRecords = () => 0;\n",
    };
    const sound = checkLayers(tree({
      ...SOUND, ...kernel,
      "scripts/tool.ts": 'import { closeDb } from "@/lib/db";\nimport type { Tx } from "@/lib/db";\nimport { poolUse } from "@/lib/db/status";\nimport { closeRecords } from "@/lib/records";\nimport { series } from "@/lib/series";\nexport const run = (tx: Tx) => series() + poolUse() + closeDb() + closeRecords() + tx;\n',
      // The benchmark tools measure the kernel itself.
      "scripts/bench-reads.ts": 'import { db } from "@/lib/db";\nimport { records } from "@/lib/records";\nimport pg from "pg";\nexport const run = () => db() + records() + String(pg);\n',
    }));
    expect(sound).toEqual([]);
    const problems = checkLayers(tree({
      ...SOUND, ...kernel,
      "scripts/tool.ts": 'import { closeDb, db } from "@/lib/db";\nexport const run = () => db() + closeDb();\n',
      "lib/server/health.ts": 'import * as database from "@/lib/db";\nimport { records } from "@/lib/records";\nexport const health = () => database.db() + records();\n',
      "lib/server/size.ts": 'import pg from "pg";\nexport const size = () => String(pg) + import("better-sqlite3");\n',
    }));
    expect(problems).toEqual([
      expect.stringContaining("lib/server/health.ts:1: a transport (lib/server) imports the database handle (db, Prisma) from @/lib/db; it calls capabilities"),
      expect.stringContaining("lib/server/health.ts:2: a transport (lib/server) imports the records store (records) from @/lib/records"),
      expect.stringContaining("lib/server/size.ts:1: a transport (lib/server) imports a database driver or client from pg"),
      expect.stringContaining("lib/server/size.ts:2: a transport (lib/server) imports a database driver or client from better-sqlite3"),
      expect.stringContaining("scripts/tool.ts:1: a transport (scripts) imports the database handle (db, Prisma) from @/lib/db"),
    ]);
  });

  it("sends browser components to a capability's client face", () => {
    const problems = checkLayers(tree({
      ...SOUND,
      "lib/series/client.ts": "export const step = 600;\n",
      "components/Chart.tsx": '"use client";\nimport { series } from "@/lib/series";\nimport type { series as S } from "@/lib/series";\nimport { step } from "@/lib/series/client";\nexport const Chart = (): ReturnType<typeof S> => series() + step;\n',
    }));
    expect(problems).toEqual([expect.stringContaining("components/Chart.tsx:2: a browser component imports the server face of lib/series")]);
  });

  it("holds for this repository", () => {
    expect(checkLayers(join(__dirname, "..", ".."))).toEqual([]);
  });
});
