import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "@playwright/test";
import { browserPath } from "./tests/support/browser.mjs";
import { TEST_ENV } from "./tests/support/test-env.mjs";

/**
 * Browser tests of the site (issue 7) in Debian's Chromium against the built app (`npm run build`
 * first; `npm test` does it), served by server.mjs on its own port with a fresh SQLite database
 * holding the demo data. The config is evaluated by every worker, so the paths are derived
 * from the port, not random.
 */
const PORT = Number(process.env.E2E_PORT ?? 3311);
// For the servers and for the scripts the specs run (tests/e2e/helpers.ts createUser).
Object.assign(process.env, TEST_ENV);
const E2E_DIR = join(tmpdir(), `enhydris-e2e-${PORT}`);
const DATABASE_URL = `file:${join(E2E_DIR, "e2e.db")}`;
process.env.E2E_DATABASE_URL = DATABASE_URL;
// The demo site's log (its JSON lines), for tests that check what the server logged.
process.env.E2E_SERVER_LOG = join(E2E_DIR, "server.log");
// The development mail transport writes each message here (lib/mail/index.ts).
const OUTBOX = join(E2E_DIR, "outbox");
process.env.E2E_OUTBOX = OUTBOX;
// A second server, with ENHYDRIS_AUTHENTICATION_REQUIRED and an empty database.
const AUTH_PORT = PORT + 1;
const AUTH_DIR = join(tmpdir(), `enhydris-e2e-${AUTH_PORT}-auth`);
process.env.E2E_AUTH_URL = `http://127.0.0.1:${AUTH_PORT}`;
const AUTH_DATABASE_URL = `file:${join(AUTH_DIR, "auth.db")}`;
process.env.E2E_AUTH_DATABASE_URL = AUTH_DATABASE_URL;

const CHROMIUM_ARGS = [
  "--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
];

/** A server of its own on a fresh database and directory (removed before it starts). */
function webServer(port: number, dir: string, databaseUrl: string, extra: Record<string, string>) {
  return {
    command: `rm -rf "${dir}" && mkdir -p "${dir}" && exec node server.mjs > "${join(dir, "server.log")}"`,
    url: `http://127.0.0.1:${port}/accounts/login/`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "ignore" as const,
    stderr: "pipe" as const,
    env: {
      NODE_ENV: "production",
      PORT: String(port),
      HOSTNAME_BIND: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      ENHYDRIS_MEDIA_DIR: join(dir, "media"),
      ENHYDRIS_SECRET_KEY: "e2e-secret-key-not-for-production",
      ENHYDRIS_SECRET_KEY_FILE: join(dir, "secret_key"),
      ENHYDRIS_SITE_NAME: "Enhydris",
      ENHYDRIS_ALLOWED_HOSTS: "127.0.0.1,localhost",
      ENHYDRIS_EMAIL_HOST: "",
      // Every test's browser comes from 127.0.0.1, so the login throttle's address counter would
      // add up the failed logins the specs make on purpose and refuse later specs' logins (429);
      // the throttle itself is tested over HTTP (tests/http/auth.test.ts).
      ENHYDRIS_LOGIN_MAX_FAILURES: "1000",
      // The job process at the web's priority, as in the HTTP tests (tests/support/server.ts):
      // beside Chromium on a busy machine, a niced one keeps the specs that wait for a job waiting.
      ENHYDRIS_JOB_NICE: "0",
      ...TEST_ENV,
      ...extra,
    },
  };
}

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results",
  // Per test, not per step (each expectation has its own 10 s): a slow or busy machine takes its
  // time over a test's many pages (45 s ran out for 8 of 37 tests with Chromium, the servers and
  // busy loops on one core).
  timeout: 120_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    viewport: { width: 1280, height: 800 },
    launchOptions: { executablePath: browserPath(), args: CHROMIUM_ARGS },
    acceptDownloads: true,
    // Recording a trace of every test, to keep the failed ones', took a fifth of the suite's time
    // on the 2-core machine (629 s against 511 s); with CI=1 a failed test is retried with a trace.
    trace: "on-first-retry",
    screenshot: "only-on-failure",
  },
  projects: [
    // The specs that add stations, synoptic groups and replicated copies to the demo site (the
    // accessibility scan adds one of each page kind) run after the others, which count the demo site's stations.
    { name: "chromium", use: { browserName: "chromium" }, testIgnore: /(manage|synoptic|replication|telemetry|corrections|a11y)\.spec\.ts$/ },
    { name: "chromium-writers", use: { browserName: "chromium" }, testMatch: /(manage|synoptic|replication|telemetry|corrections|a11y)\.spec\.ts$/, dependencies: ["chromium"] },
  ],
  webServer: [
    // The demo site: the server migrates the database and loads the demo data at start-up.
    // Telemetry's test reaches a fake vendor on loopback; registration is open (public-greek.spec signs up).
    webServer(PORT, E2E_DIR, DATABASE_URL, { ENHYDRIS_DEMO_DATA: "1", ENHYDRIS_REGISTRATION_OPEN: "1", ENHYDRIS_OUTBOX_DIR: OUTBOX, ENHYDRIS_OUTBOUND_ALLOW: "127.0.0.1" }),
    // A site that requires a login for everything.
    webServer(AUTH_PORT, AUTH_DIR, AUTH_DATABASE_URL, {
      ENHYDRIS_DEMO_DATA: "0", ENHYDRIS_AUTHENTICATION_REQUIRED: "1", ENHYDRIS_OUTBOX_DIR: join(AUTH_DIR, "outbox"),
    }),
  ],
});
