// npm test: builds the app, then runs the unit tests, the HTTP tests on SQLite and on
// PostgreSQL, and the browser tests, and ends with a summary of every suite.
//   TEST_PG_URL=postgres://…      use this PostgreSQL (a role that may create databases);
//                                 otherwise a private cluster is started with scripts/pg-cluster.sh
//   REQUIRE_POSTGRES=1            fail instead of skipping when no PostgreSQL can be had (CI)
//   REQUIRE_BROWSER=1             fail instead of skipping when Chromium is missing (CI)
//   SKIP_BUILD=1                  reuse the existing production build
//   TEST_SUITES=unit,http-sqlite  run only these suites (unit, http-sqlite, http-postgres, e2e)
//   TEST_SEQUENTIAL=1             run the suites one after another: the unit tests, the HTTP
//                                 tests on SQLite, on PostgreSQL, the browser tests. By default
//                                 the two HTTP suites and the browser tests start together (the
//                                 HTTP suites wait on their servers and databases part of the
//                                 time, and the browser tests take what cores they leave: a run
//                                 ~200 s shorter, ADR 24), and the unit tests run beside the HTTP
//                                 suite that ends last, once the other has ended (one suite alone
//                                 left a core idle for minutes)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { browserPath } from "../tests/support/browser.mjs";
import { SQLITE_ONLY } from "../tests/support/databases.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const wanted = new Set((process.env.TEST_SUITES ?? "unit,http-sqlite,http-postgres,e2e").split(",").map((s) => s.trim()));
const results = [];

/** Like run, but at the same time as others: each line it prints is prefixed with `tag`. */
function runBeside(name, tag, command, args, env = {}, failedTests = () => []) {
  console.log(`\n===== ${name} (lines marked [${tag}]) =====\n`);
  const started = Date.now();
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  for (const stream of [child.stdout, child.stderr]) {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (text) => {
      const lines = (rest + text).split("\n");
      rest = lines.pop();
      for (const line of lines) console.log(`[${tag}] ${line}`);
    });
    stream.on("end", () => rest && console.log(`[${tag}] ${rest}`));
  }
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      const ok = code === 0;
      resolve({ name, ok, note: ok ? `passed (${seconds} s)` : `FAILED (exit ${code ?? signal}, ${seconds} s)`, failed: ok ? [] : failedTests() });
    });
  });
}

function run(name, command, args, env = {}, failedTests = () => []) {
  console.log(`\n===== ${name} =====\n`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const ok = result.status === 0;
  results.push({ name, ok, note: ok ? `passed (${seconds} s)` : `FAILED (exit ${result.status ?? result.signal}, ${seconds} s)`, failed: ok ? [] : failedTests() });
  return ok;
}

// The summary names the failed tests, so that the end of a long log (all a CI report may keep)
// says what failed: vitest also writes a JSON report, read back here.
const reports = mkdtempSync(join(tmpdir(), "enhydris-npm-test-"));
process.on("exit", () => rmSync(reports, { recursive: true, force: true }));
function vitestArgs(project, report) {
  return ["run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`];
}
function vitest(name, project, env = {}) {
  const report = join(reports, `${project}-${results.length}.json`);
  return run(name, bin("vitest"), vitestArgs(project, report), env, () => failedIn(report));
}
function vitestBeside(name, tag, project, env = {}) {
  const report = join(reports, `${project}-${tag}.json`);
  return runBeside(name, tag, bin("vitest"), vitestArgs(project, report), env, () => failedIn(report));
}
function failedIn(report) {
  if (!existsSync(report)) return ["(no report: the runner stopped before writing one)"];
  const { testResults = [] } = JSON.parse(readFileSync(report, "utf8"));
  const failed = [];
  for (const file of testResults) {
    const path = file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
    const tests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of tests) failed.push(`${path} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    if (tests.length === 0 && file.status === "failed") failed.push(`${path}: ${firstLine(file.message)}`);
  }
  return failed;
}
function firstLine(text = "") {
  const line = text.replace(/\x1b\[[0-9;]*m/g, "").split("\n").find((l) => l.trim()) ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function skip(name, why, required) {
  results.push({ name, ok: !required, note: `skipped: ${why}` });
}

function postgresUrl() {
  if (process.env.TEST_PG_URL) return { url: process.env.TEST_PG_URL };
  const script = join(root, "scripts", "pg-cluster.sh");
  const port = process.env.TEST_PG_PORT ?? "54329";
  const started = spawnSync(script, ["start", port], { encoding: "utf8" });
  if (started.status !== 0) return { error: (started.stderr || started.stdout || "could not start PostgreSQL").trim() };
  return { url: started.stdout.trim() };
}

const BROWSER_TESTS = "browser tests (Playwright, Chromium)";
function skipBrowserTests() {
  skip(BROWSER_TESTS, `no Chromium at ${browserPath()} (apt-get install -y chromium-headless-shell)`, !!process.env.REQUIRE_BROWSER);
}
/**
 * The browser tests beside the HTTP suites (a promise of their result), or null when they are
 * not to run; then they are not run again after the HTTP suites.
 */
function browserTestsBeside() {
  if (!wanted.has("e2e") || !existsSync(join(root, "playwright.config.ts"))) return null;
  wanted.delete("e2e");
  if (existsSync(browserPath())) return runBeside(BROWSER_TESTS, "e2e", bin("playwright"), ["test"]);
  skipBrowserTests();
  return null;
}

// The build is Next's and the server's (npm run build: scripts/build-server.mjs bundles lib/server/).
const built = existsSync(join(root, ".next", "BUILD_ID")) && existsSync(join(root, ".next", "enhydris", "main.mjs"));
if (!process.env.SKIP_BUILD || !built) {
  if (!run("build", bin("next"), ["build"]) || !run("server build", process.execPath, [join(root, "scripts", "build-server.mjs")])) {
    console.error("\nThe build failed; no tests were run.");
    process.exit(1);
  }
}
{
  const SQLITE = ["HTTP tests on SQLite", { TEST_DATABASE: "sqlite" }];
  const pg = wanted.has("http-postgres") ? postgresUrl() : null;
  const POSTGRES = ["HTTP tests on PostgreSQL", { TEST_DATABASE: "postgres", TEST_PG_URL: pg?.url }];
  const edgeOnly = Object.keys(SQLITE_ONLY);
  const noteEdge = (r) => {
    if (edgeOnly.length) r.note += ` (on SQLite alone, as they test the HTTP edge: ${edgeOnly.map((f) => f.replace("tests/http/", "")).join(", ")})`;
  };
  if (pg && !pg.url) skip("HTTP tests on PostgreSQL", pg.error, !!process.env.REQUIRE_POSTGRES);
  const both = wanted.has("http-sqlite") && pg?.url;
  if (both && !process.env.TEST_SEQUENTIAL) {
    const e2e = browserTestsBeside();
    const onSqlite = vitestBeside(SQLITE[0], "sqlite", "http", SQLITE[1]);
    const onPostgres = vitestBeside(POSTGRES[0], "postgres", "http", POSTGRES[1]);
    // The unit tests take the core that the HTTP suite ending first leaves idle (CPU-bound, they
    // wait for nothing: at the start they would only slow the others down).
    const unit = wanted.has("unit") ? Promise.race([onSqlite, onPostgres]).then(() => vitestBeside("unit tests", "unit", "unit")) : null;
    const [sqliteResult, postgresResult, unitResult, e2eResult] = await Promise.all([onSqlite, onPostgres, unit, e2e]);
    noteEdge(postgresResult);
    results.push(...(unitResult ? [unitResult] : []), sqliteResult, postgresResult, ...(e2eResult ? [e2eResult] : []));
  } else {
    if (wanted.has("unit")) vitest("unit tests", "unit");
    if (wanted.has("http-sqlite")) vitest(SQLITE[0], "http", SQLITE[1]);
    if (pg?.url) {
      vitest(POSTGRES[0], "http", POSTGRES[1]);
      noteEdge(results.at(-1));
    }
  }
}
if (wanted.has("e2e") && existsSync(join(root, "playwright.config.ts"))) {
  if (existsSync(browserPath())) run(BROWSER_TESTS, bin("playwright"), ["test"]);
  else skipBrowserTests();
}

console.log("\n===== Summary =====");
for (const r of results.filter((r) => r.name !== "build" && r.name !== "server build")) {
  console.log(`${r.ok ? "✓" : "✗"} ${r.name}: ${r.note}`);
  for (const test of r.failed ?? []) console.log(`    ✗ ${test}`);
}
const failed = results.filter((r) => !r.ok);
console.log(failed.length ? `\n${failed.length} suite(s) failed.` : "\nAll test suites passed.");
process.exit(failed.length ? 1 : 0);
