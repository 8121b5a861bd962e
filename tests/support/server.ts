import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import { reloadSettings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";
import { records } from "@/lib/records";

/**
 * A real server (server.mjs on the built app) with a fresh database of the dialect under test:
 * TEST_DATABASE=sqlite (default) or postgres (with TEST_PG_URL, a role that may create
 * databases). The test process uses the same database for fixtures (lib/ services).
 */
export const ROOT = resolve(__dirname, "..", "..");
export const DIALECT = (process.env.TEST_DATABASE ?? "sqlite") as "sqlite" | "postgres";
/** The ENHYDRIS_SECRET_KEY of test servers (unless a test gives another). */
export const TEST_SECRET_KEY = "test-secret-key-for-the-test-suite";

export interface TestServer {
  readonly url: string;
  readonly databaseUrl: string;
  readonly mediaDir: string;
  readonly child: ChildProcess;
  /** What the server printed so far. */
  output(): string;
  /** The server's processes: the primary and its workers (node:cluster), or the one process; and the job process. */
  processes(): number[];
  /** The web worker processes of the primary (none with ENHYDRIS_WORKERS=1). */
  webWorkers(): number[];
  /** The job process (lib/server/jobs-main.ts), while it runs. */
  jobProcess(): number | null;
  /** Kills every process of the server at once (a crash, not a shutdown). */
  kill(): void;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The admin connection string with another database name. */
function postgresUrl(admin: string, database: string): string {
  const url = new URL(admin);
  url.pathname = `/${database}`;
  return url.toString();
}

async function asPostgresAdmin(statement: string): Promise<void> {
  const admin = process.env.TEST_PG_URL;
  if (!admin) throw new Error("TEST_DATABASE=postgres needs TEST_PG_URL");
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  readonly url: string;
  /** Removes the database and its directory (call after every server on it has stopped). */
  dispose(): Promise<void>;
}

/** A fresh database of the dialect under test, in a temporary directory it owns. */
export async function scratchDatabase(): Promise<ScratchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "enhydris-db-"));
  if (DIALECT !== "postgres") {
    return { url: `file:${join(dir, "test.db")}`, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await asPostgresAdmin(`CREATE DATABASE "${name}"`);
  return {
    url: postgresUrl(process.env.TEST_PG_URL!, name),
    async dispose() {
      await closeDb();
      await asPostgresAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Points this process's lib/ (fixtures) at a database. */
export async function connectFixtures(databaseUrl: string, mediaDir?: string): Promise<void> {
  await closeDb();
  process.env.DATABASE_URL = databaseUrl;
  if (mediaDir) process.env.ENHYDRIS_MEDIA_DIR = mediaDir;
  reloadSettings();
}

/** Runs `fn` with the fixtures on `other`'s database, then points them back at `home`'s (two servers in one file). */
export async function fixturesOn<T>(other: TestServer, home: TestServer, fn: () => Promise<T>): Promise<T> {
  await connectFixtures(other.databaseUrl, other.mediaDir);
  try {
    return await fn();
  } finally {
    await connectFixtures(home.databaseUrl, home.mediaDir);
  }
}

/**
 * For a file that calls lib/ in process: a migrated scratch database, made before the file's own
 * beforeAll hooks run (which may add fixtures to it), with lib/ and the fixtures pointed at it;
 * closed and removed after the file's tests.
 */
export function inProcessDatabase(): { readonly url: string } {
  let database: ScratchDatabase | undefined;
  beforeAll(async () => {
    database = await scratchDatabase();
    await migrate(parseDatabaseUrl(database.url));
    await connectFixtures(database.url);
  }, 60_000);
  afterAll(async () => {
    records().close?.();
    await closeDb();
    await database?.dispose();
  });
  return { get url() { return database!.url; } };
}

/** With TEST_CPU_LOG (tests/support/file-accounting.ts): how long a server took to start or stop. */
function noteTime(event: "start" | "stop", since: number): void {
  const log = process.env.TEST_CPU_LOG;
  const file = (expect.getState().testPath ?? "?").replace(`${ROOT}/`, "");
  if (log) appendFileSync(log, `${JSON.stringify({ file, server: event, seconds: Math.round((Date.now() - since) / 100) / 10 })}\n`);
}

/** `script`: what to run instead of server.mjs (tests/support/next-only-server.mjs). */
export async function startServer(options: { env?: Record<string, string>; databaseUrl?: string; migrate?: boolean; script?: string } = {}): Promise<TestServer> {
  if (!existsSync(join(ROOT, process.env.ENHYDRIS_DIST_DIR || ".next", "BUILD_ID"))) throw new Error("No production build: run `npm run build` first (npm test does it).");
  const starting = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "enhydris-test-"));
  // A server given no database gets its own, removed when it stops.
  const own = options.databaseUrl ? undefined : await scratchDatabase();
  const databaseUrl = options.databaseUrl ?? own!.url;
  const removeFiles = async () => {
    await own?.dispose();
    rmSync(dir, { recursive: true, force: true });
  };
  if (options.migrate !== false) await migrate(parseDatabaseUrl(databaseUrl));
  const mediaDir = join(dir, "media");
  // Another process may take the port between freePort() and the server's listen (a second run
  // of the suites at once): then the server exits with EADDRINUSE, and another port is tried.
  let port = 0;
  let child!: ChildProcess;
  let output!: () => string;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOSTNAME_BIND: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      ENHYDRIS_DEMO_DATA: "0",
      ENHYDRIS_MEDIA_DIR: mediaDir,
      ENHYDRIS_SECRET_KEY: TEST_SECRET_KEY,
      ENHYDRIS_SECRET_KEY_FILE: join(dir, "secret_key"),
      ENHYDRIS_ALLOWED_HOSTS: "127.0.0.1,localhost",
      // One process: a second worker costs as much CPU again at every start (some 90 starts per
      // run), mostly for nothing, as a client's requests go on one connection to one worker. The
      // files about several processes (the cluster, the caches kept in each worker, read-after on
      // replicas, the shutdown) ask for two in `env`; TEST_WORKERS=2 runs every server with two.
      ENHYDRIS_WORKERS: process.env.TEST_WORKERS || "1",
      // The job process at the web's priority: `npm test` runs two suites at once on a busy
      // machine, where a niced job process waits its turn for seconds and the tests that wait for
      // a job (an alarm's e-mail, a process run) time out. tests/http/jobs-priority.test.ts tests the setting.
      ENHYDRIS_JOB_NICE: "0",
      ...options.env,
    };
    child = spawn(process.execPath, [options.script ?? "server.mjs"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout!.on("data", (d) => (text += d));
    child.stderr!.on("data", (d) => (text += d));
    output = () => text;
    // TEST_SERVER_LOG_DIR keeps every test server's log, to look through a whole run for errors no test expected.
    if (process.env.TEST_SERVER_LOG_DIR) {
      const log = createWriteStream(join(process.env.TEST_SERVER_LOG_DIR, `${basename(dir)}-${attempt}.log`));
      log.write(`${JSON.stringify({ test: expect.getState().testPath ?? null })}\n`);
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
    }
    try {
      await waitUntilUp(`http://127.0.0.1:${port}`, child, output);
      break;
    } catch (error) {
      if (attempt < 3 && /EADDRINUSE/.test(output())) continue;
      await removeFiles();
      throw error;
    }
  }
  const url = `http://127.0.0.1:${port}`;
  // Watched from the start: a test may kill the server (or the server exit) before stop() is called.
  const exited = child.exitCode === null && child.signalCode === null ? new Promise<void>((r) => child.once("exit", () => r())) : Promise.resolve();
  const running = () => child.exitCode === null && child.signalCode === null;
  /** The processes kill() killed: stop() waits until they are gone. */
  let killed: number[] = [];
  noteTime("start", starting);
  // Fixtures now write to this server's database; stop() gives them back to the previous one.
  const previous = { databaseUrl: process.env.DATABASE_URL, mediaDir: process.env.ENHYDRIS_MEDIA_DIR };
  await connectFixtures(databaseUrl, mediaDir);
  return {
    url, databaseUrl, mediaDir, child,
    output,
    processes: () => processTree(child.pid!),
    webWorkers: () => processTree(child.pid!).slice(1).filter((pid) => !isJobProcess(pid)),
    jobProcess: () => processTree(child.pid!).find(isJobProcess) ?? null,
    kill() {
      killed = processTree(child.pid!);
      for (const pid of killed) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
    async stop() {
      const stopping = Date.now();
      // A killed server has a signalCode, not an exitCode: looking at the exitCode alone sent it a
      // SIGTERM and waited the whole 30 s for an exit that had already happened.
      if (running()) {
        child.kill("SIGTERM");
        // As long as the server's own bound (25 s for the requests in flight and the shutdown hooks):
        // a busy machine may need more than a few seconds, and a test may check the clean exit.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
        clearTimeout(timer);
        if (running()) child.kill("SIGKILL");
      }
      await exited;
      await gone(killed);
      noteTime("stop", stopping);
      await closeDb();
      if (process.env.DATABASE_URL === databaseUrl && previous.databaseUrl) await connectFixtures(previous.databaseUrl, previous.mediaDir);
      await removeFiles();
    },
  };
}

/** Resolves when none of these processes runs any more (gone, or a zombie not yet reaped). */
async function gone(pids: number[]): Promise<void> {
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  while (pids.some(alive)) await new Promise((r) => setTimeout(r, 10));
}

/** Whether a process runs the job process's bundle (jobs.mjs). */
function isJobProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").some((arg) => arg.endsWith("/jobs.mjs"));
  } catch {
    return false;
  }
}

/** A process and its descendants, parents first. */
function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return [pid, ...children.flatMap(processTree)];
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited with ${child.exitCode ?? child.signalCode}:\n${output()}`);
    try {
      // The health endpoint answers whatever the allowed hosts are.
      const response = await fetch(`${url}/api/health/`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`server did not start:\n${output()}`);
}
