import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { reloadSettings } from "@/lib/config";
import { closeDb } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { parseDatabaseUrl } from "@/lib/db/url";

/**
 * A real server (server.mjs on the built app) with a fresh database of the dialect under test:
 * TEST_DATABASE=sqlite (default) or postgres (with TEST_PG_URL, a role that may create
 * databases). The test process uses the same database for fixtures (lib/ services).
 */
export const ROOT = resolve(__dirname, "..", "..");
export const DIALECT = (process.env.TEST_DATABASE ?? "sqlite") as "sqlite" | "postgres";

export interface TestServer {
  readonly url: string;
  readonly databaseUrl: string;
  readonly mediaDir: string;
  readonly child: ChildProcess;
  /** What the server printed so far. */
  output(): string;
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

async function freshPostgresDatabase(): Promise<string> {
  const admin = process.env.TEST_PG_URL;
  if (!admin) throw new Error("TEST_DATABASE=postgres needs TEST_PG_URL");
  const name = `test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function freshDatabaseUrl(dir: string): Promise<string> {
  return DIALECT === "postgres" ? freshPostgresDatabase() : `file:${join(dir, "test.db")}`;
}

/** Points this process's lib/ (fixtures) at a database. */
export async function connectFixtures(databaseUrl: string, mediaDir?: string): Promise<void> {
  await closeDb();
  process.env.DATABASE_URL = databaseUrl;
  if (mediaDir) process.env.ENHYDRIS_MEDIA_DIR = mediaDir;
  reloadSettings();
}

export async function startServer(options: { env?: Record<string, string>; databaseUrl?: string; migrate?: boolean } = {}): Promise<TestServer> {
  if (!existsSync(join(ROOT, process.env.ENHYDRIS_DIST_DIR || ".next", "BUILD_ID"))) throw new Error("No production build: run `npm run build` first (npm test does it).");
  const dir = mkdtempSync(join(tmpdir(), "enhydris-test-"));
  const databaseUrl = options.databaseUrl ?? (await freshDatabaseUrl(dir));
  if (options.migrate !== false) await migrate(parseDatabaseUrl(databaseUrl));
  const mediaDir = join(dir, "media");
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOSTNAME_BIND: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    ENHYDRIS_DEMO_DATA: "0",
    ENHYDRIS_MEDIA_DIR: mediaDir,
    ENHYDRIS_SECRET_KEY: "test-secret-key-for-the-test-suite",
    ENHYDRIS_SECRET_KEY_FILE: join(dir, "secret_key"),
    ...options.env,
  };
  const child = spawn(process.execPath, ["server.mjs"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(url, child, () => output);
  // Fixtures now write to this server's database; stop() gives them back to the previous one.
  const previous = { databaseUrl: process.env.DATABASE_URL, mediaDir: process.env.ENHYDRIS_MEDIA_DIR };
  await connectFixtures(databaseUrl, mediaDir);
  return {
    url, databaseUrl, mediaDir, child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      await closeDb();
      if (process.env.DATABASE_URL === databaseUrl && previous.databaseUrl) await connectFixtures(previous.databaseUrl, previous.mediaDir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}/api/`);
      if (response.status === 200 || response.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`server did not start:\n${output()}`);
}
