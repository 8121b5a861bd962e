import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { settings } from "@/lib/config";
import { Mutex } from "@/lib/db/mutex";
import { openSqlite, type SqliteDatabase } from "@/lib/db/sqlite";
import { parseDatabaseUrl, type Dialect } from "@/lib/db/url";
import { PrismaClient as SqlitePrismaClient, Prisma } from "@/lib/db/generated/sqlite/client";
import { PrismaClient as PostgresPrismaClient } from "@/lib/db/generated/postgres/client";

export { Prisma };
/** Both generated clients have the same models; the SQLite one's type stands for both. */
export type PrismaClient = SqlitePrismaClient;
export type Tx = Prisma.TransactionClient;

/**
 * The process's database handles. Metadata goes through Prisma; the records store uses the
 * native driver (`sqlite` connection or `pool`).
 *
 * SQLite has one writer at a time. Every write of this process — a Prisma transaction or a
 * native records transaction — runs under `writeLock`, so that a native write never waits on
 * the file lock held by a Prisma transaction that is itself waiting for the event loop.
 * Reads use their own connections and never see another request's uncommitted writes.
 */
export interface Db {
  readonly dialect: Dialect;
  /** For reads; on PostgreSQL also for single statements. */
  readonly prisma: PrismaClient;
  /** Runs `fn` in a transaction (serialized with every other write on SQLite). */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Serializes native writes with Prisma's on SQLite; runs `fn` directly on PostgreSQL. */
  withWriteLock<T>(fn: () => Promise<T> | T): Promise<T>;
  readonly sqlite: SqliteDatabase | null;
  readonly pool: pg.Pool | null;
  close(): Promise<void>;
}

function createSqliteDb(path: string): Db {
  const lock = new Mutex();
  const adapter = () =>
    new PrismaBetterSQLite3({ url: `file:${path}`, timeout: 15_000 }, { timestampFormat: "unixepoch-ms" });
  const reader = new SqlitePrismaClient({ adapter: adapter() });
  const writer = new SqlitePrismaClient({ adapter: adapter() });
  // Prisma's SQLite connections must enforce foreign keys (cascades) like the native one.
  const ready = Promise.all([
    reader.$executeRawUnsafe("PRAGMA foreign_keys = ON"),
    writer.$executeRawUnsafe("PRAGMA foreign_keys = ON"),
  ]);
  const native = openSqlite(path);
  return {
    dialect: "sqlite",
    prisma: reader,
    write: (fn) => lock.run(async () => {
      await ready;
      return writer.$transaction(fn, { timeout: 60_000, maxWait: 60_000 });
    }),
    withWriteLock: (fn) => lock.run(fn),
    sqlite: native,
    pool: null,
    async close() {
      await Promise.all([reader.$disconnect(), writer.$disconnect()]);
      native.close();
    },
  };
}

function createPostgresDb(url: string): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.ENHYDRIS_PG_POOL_SIZE ?? 20),
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its server must not crash the process.
  pool.on("error", (err) => console.error("PostgreSQL pool error:", err.message));
  const prisma = new PostgresPrismaClient({ adapter: new PrismaPg(pool) }) as unknown as PrismaClient;
  return {
    dialect: "postgres",
    prisma,
    write: (fn) => prisma.$transaction(fn, { timeout: 60_000, maxWait: 10_000 }),
    withWriteLock: async (fn) => fn(),
    sqlite: null,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

const KEY = Symbol.for("enhydris.db");
type Holder = { [KEY]?: Db };

/** The process's database (opened on first use, from DATABASE_URL). */
export function db(): Db {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    const target = parseDatabaseUrl(settings().databaseUrl);
    holder[KEY] = target.dialect === "sqlite" ? createSqliteDb(target.path) : createPostgresDb(target.url);
  }
  return holder[KEY];
}

/** Closes the process's database, for scripts and tests. */
export async function closeDb(): Promise<void> {
  const holder = globalThis as Holder;
  const current = holder[KEY];
  delete holder[KEY];
  await current?.close();
}

/** True when an error means the database cannot be reached (→ 503). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (e && typeof e === "object" && !seen.has(e)) {
    seen.add(e);
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (
      ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EPIPE", "57P01", "57P02", "57P03",
        "53300", "08000", "08001", "08003", "08006", "P1001", "P1002", "P1017", "SQLITE_CANTOPEN", "SQLITE_BUSY"].includes(code)
    )) return true;
    if (typeof message === "string" && /Connection terminated|connection timeout|timeout exceeded when trying to connect|Can't reach database|database system is (shutting down|starting up)|Client has encountered a connection error|DatabaseNotReachable|database is locked/i.test(message)) return true;
    e = (e as { cause?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
  }
  return false;
}
