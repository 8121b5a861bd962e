// The server's launcher: `npm start` and the tests run `node server.mjs`. The server itself is
// TypeScript (lib/server/main.ts, which imports lib/); `npm run build` bundles it beside Next's
// build (scripts/build-server.mjs), and `--dev` bundles it afresh at each start.
//   node server.mjs          production (after `npm run build`)
//   node server.mjs --demo   the same, answering to localhost when no host is set (`npm run serve`)
//   node server.mjs --dev    development, with hot reloading
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseBoolean } from "./lib/config/boolean.mjs";

// Stack traces name the lines of lib/, not of the bundle; unless ENHYDRIS_SOURCE_MAPS is off
// (lib/config, which refuses a value that is not a boolean): Node 20 reads and keeps the map of
// every module it loads, Next's included, which costs each web process ~90 MB and 0.6 s of CPU
// at its start. The tests turn them off (tests/support/test-env.mjs).
if (parseBoolean(process.env.ENHYDRIS_SOURCE_MAPS) !== false) process.setSourceMapsEnabled(true);
let dir;
if (process.argv.includes("--dev")) {
  const { buildServer } = await import("./scripts/build-server.mjs");
  dir = await buildServer(join(process.cwd(), "node_modules", ".cache", "enhydris", "server"));
} else {
  dir = join(process.cwd(), process.env.ENHYDRIS_DIST_DIR || ".next", "enhydris");
  if (!existsSync(join(dir, "main.mjs"))) {
    console.error(`No server build in ${dir}: run \`npm run build\` first.`);
    process.exit(1);
  }
}
await import(pathToFileURL(join(dir, "main.mjs")).href);
