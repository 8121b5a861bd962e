// node scripts/profile-summary.mjs DIR [TOP] — where the CPU time of the server processes went,
// from the .cpuprofile files that `node --cpu-prof --cpu-prof-dir=DIR` wrote (for example
// `LOAD_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" npm run load`). Prints, over all the files,
// the share of samples per part of the stack (Next.js, React's server renderer, the database
// drivers, our code, garbage collection, idle) by self time, and the TOP functions (default 25).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, topArg] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scripts/profile-summary.mjs DIR [TOP]");
  process.exit(2);
}
const TOP = Number(topArg ?? 25);

/** The part of the stack a frame belongs to, from its script's URL. */
function partOf(url, name) {
  if (!url) return name.startsWith("(") ? name : "node internals";
  if (url.startsWith("node:")) return "node internals";
  if (/node_modules\/next\/dist\/compiled\/react-dom|react-dom|react-server-dom/.test(url)) return "React rendering";
  if (/node_modules\/next\//.test(url)) return "Next.js";
  if (/better-sqlite3/.test(url)) return "better-sqlite3";
  if (/node_modules\/(pg|pg-protocol|pg-pool|@prisma\/adapter-pg)\//.test(url)) return "pg driver";
  if (/@prisma|\.prisma|prisma\/generated/.test(url)) return "Prisma";
  if (/node_modules\/(pino|prom-client)/.test(url)) return "logging and metrics";
  if (/node_modules\//.test(url)) return `other packages (${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]})`;
  if (/\.next\/server\/chunks|\.next\/server\/app/.test(url)) return "our code (bundled)";
  return "our code";
}

const parts = new Map();
const functions = new Map();
let total = 0;
const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
for (const file of files) {
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Self time per node: the samples' time deltas credited to the sampled (leaf) node.
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || "(anonymous)";
    const part = partOf(callFrame.url, name);
    parts.set(part, (parts.get(part) ?? 0) + us);
    const key = `${name} ${callFrame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(\.next|lib|app)\//, "$1/")}:${callFrame.lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    total += us;
  }
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
console.log(`${files.length} profiles, ${(total / 1e6).toFixed(1)} s of samples\n\nBy part (self time):`);
for (const [part, us] of [...parts].sort((a, b) => b[1] - a[1])) console.log(`${pct(us)}  ${part}`);
console.log(`\nTop ${TOP} functions (self time):`);
for (const [key, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${pct(us)}  ${key}`);
