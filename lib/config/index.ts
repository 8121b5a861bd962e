import { availableParallelism } from "node:os";
import { parseBoolean } from "@/lib/config/boolean.mjs";
import { ALLOWED_HOSTS_EXPECTED, hostName, parseAllowedHosts } from "@/lib/config/hosts.mjs";
import { parseOutboundAllow, type OutboundAllowList } from "@/lib/outbound";

/** Settings from the environment (api.md §14), read once and validated at start-up. */
export interface Settings {
  databaseUrl: string;
  /** PostgreSQL read replicas (streaming standbys of DATABASE_URL); ignored on SQLite. */
  databaseReplicaUrls: string[];
  /** Seconds a replica may lag behind the primary and still be read from. */
  replicaMaxLag: number;
  port: number;
  /** HOSTNAME_BIND: the address the server listens on. */
  hostnameBind: string;
  /**
   * ENHYDRIS_WORKERS: the server's web worker processes (default: the machine's cores); with 1 it
   * serves in one process, without a primary (docs/decisions/0016-multi-process-server.md).
   */
  workers: number;
  /** ENHYDRIS_BODY_IDLE_TIMEOUT: seconds a request's body may stop arriving (0: no limit; lib/server/body-idle.ts). */
  bodyIdleTimeout: number;
  /**
   * ENHYDRIS_API_THROUGH_NEXT: the API's requests go through Next's route handlers, as in
   * development, instead of straight to its routers (docs/decisions/0007); slower, for comparing
   * the two and for tests of what the server relies on in Next (lib/server/next-internals.ts).
   */
  apiThroughNext: boolean;
  demoData: boolean;
  mediaDir: string;
  pageSize: number;
  maxPageSize: number;
  usersCanAddContent: boolean;
  authenticationRequired: boolean;
  defaultPubliclyAvailable: boolean;
  mapDefaultViewport: [number, number, number, number];
  mapMinViewportSize: number;
  maxUploadSize: number;
  tokenLifetime: number;
  loginMaxFailures: number;
  loginFailureWindow: number;
  passwordResetTimeout: number;
  /** log2 of scrypt's N for new password hashes (a stored hash keeps the N it was made with). */
  passwordHashCost: number;
  /** Whether stack traces are mapped to the sources (read by server.mjs before the server loads). */
  sourceMaps: boolean;
  siteUrl: string;
  /**
   * The host names the service answers to (ENHYDRIS_ALLOWED_HOSTS and the site URL's host); a
   * request for another host gets 400, so that no link is ever built from a forged Host.
   */
  allowedHosts: string[];
  siteName: string;
  secretKey: string;
  trustProxyHeaders: boolean;
  /** Strict-Transport-Security max-age for HTTPS requests; 0 sends none. */
  hstsMaxAge: number;
  /** When set, {site}/metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string;
  corsAllowedOrigins: string[];
  emailHost: string;
  emailPort: number;
  emailUser: string;
  emailPassword: string;
  emailSecure: boolean;
  emailFrom: string;
  mapTileUrl: string;
  mapTileAttribution: string;
  jobRunner: boolean;
  /** Jobs of one pool that run at once (lib/jobs/registry.ts, JobPool). */
  jobConcurrency: number;
  jobLeaseSeconds: number;
  /** A job running longer than this is stopped and marked failed. */
  jobTimeoutSeconds: number;
  /** The heap a job's thread may use, in MB. */
  jobMemoryMb: number;
  /** How many nice steps the job process runs below the server (0–19): serving HTTP comes first. */
  jobNice: number;
  /** Replication: how long a source may take to answer (or stay silent while it sends data). */
  replicationTimeoutSeconds: number;
  /** Early-warning e-mails an address gets in an hour at most; 0 = no cap. */
  alarmEmailsPerHour: number;
  /** Special addresses that outbound requests (telemetry, replication) may reach (telemetry.md §3). */
  outboundAllow: OutboundAllowList;
  /** Telemetry: how long one request to a vendor may take, whole. */
  telemetryTimeoutSeconds: number;
  /** Telemetry: fetches that run at once in a job runner. */
  telemetryConcurrency: number;
  /** Self-registration on the site (public.md §1); closed, its pages answer 404. */
  registrationOpen: boolean;
  /** Markdown file of the terms a new user accepts; empty: a short default text. */
  termsFile: string;
  /** Days an activation link stays valid; unactivated accounts are removed after it. */
  activationDays: number;
  /** Registrations a client address may make in an hour. */
  registrationRate: number;
}

export class SettingsError extends Error {}

type Env = Record<string, string | undefined>;

function reader(env: Env) {
  const raw = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const fail = (name: string, expected: string): never => {
    throw new SettingsError(`Invalid setting ${name}=${JSON.stringify(env[name])}: expected ${expected}.`);
  };
  return {
    string: (name: string, fallback: string) => raw(name) ?? fallback,
    boolean(name: string, fallback: boolean): boolean {
      const value = raw(name);
      if (value === undefined) return fallback;
      return parseBoolean(value) ?? fail(name, "a boolean (true/false, 1/0, on/off, yes/no, y/n)");
    },
    /** An integer from `min` to `max` ("an integer from 1 to 65535"). */
    range(name: string, fallback: number, min: number, max: number): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) return fail(name, `an integer from ${min} to ${max}`);
      return Number(value);
    },
    integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (!/^[+-]?\d+$/.test(value) || Number(value) < min || Number(value) > max || !Number.isSafeInteger(Number(value))) {
        return fail(name, max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`);
      }
      return Number(value);
    },
    /** A whole number of seconds, 0 turning the check off. */
    seconds(name: string, fallback: number): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      return /^\d{1,7}$/.test(value) ? Number(value) : fail(name, "a number of seconds (0 turns the check off)");
    },
    number(name: string, fallback: number): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      const n = Number(value);
      return Number.isFinite(n) && n >= 0 ? n : fail(name, "a non-negative number");
    },
    viewport(name: string, fallback: [number, number, number, number]): [number, number, number, number] {
      const value = raw(name);
      if (value === undefined) return fallback;
      const parts = value.split(",").map((p) => Number(p.trim()));
      if (parts.length !== 4 || parts.some((p) => !Number.isFinite(p))) {
        return fail(name, "four comma-separated numbers min_lon,min_lat,max_lon,max_lat");
      }
      return parts as [number, number, number, number];
    },
    url(name: string): string {
      const value = raw(name);
      if (value === undefined) return "";
      try {
        const url = new URL(value);
        if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
      } catch {
        return fail(name, "an absolute http(s) URL");
      }
      return value.replace(/\/+$/, "");
    },
    origins(name: string): string[] {
      const value = raw(name);
      if (value === undefined) return [];
      return value.split(",").map((o) => o.trim()).filter(Boolean).map((origin) => {
        try {
          const url = new URL(origin);
          if (url.origin !== origin.replace(/\/$/, "")) throw new Error();
          return url.origin;
        } catch {
          return fail(name, "comma-separated origins such as https://a.example");
        }
      });
    },
    hosts(name: string): string[] {
      return parseAllowedHosts(raw(name)) ?? fail(name, ALLOWED_HOSTS_EXPECTED);
    },
    databaseUrl(name: string): string {
      const value = raw(name) ?? "file:./data/enhydris.db";
      if (!/^(file:.+|postgres(ql)?:\/\/.+)$/.test(value)) {
        return fail(name, "file:<path> or postgres://…");
      }
      return value;
    },
    outboundAllow(name: string): OutboundAllowList {
      const parsed = parseOutboundAllow(raw(name));
      if (parsed.ok) return parsed.allow;
      throw new SettingsError(`Invalid setting ${parsed.error}.`);
    },
    postgresUrls(name: string): string[] {
      const urls = (raw(name) ?? "").split(",").map((u) => u.trim()).filter(Boolean);
      return urls.every((u) => /^postgres(ql)?:\/\/.+/.test(u)) ? urls : fail(name, "comma-separated postgres://… URLs");
    },
  };
}

/** Parses the settings; throws SettingsError naming the first invalid variable. */
export function parseSettings(env: Env): Settings {
  const r = reader(env);
  const siteUrl = r.url("ENHYDRIS_SITE_URL");
  const siteHost = siteUrl ? new URL(siteUrl).host : "";
  const allowedHosts = r.hosts("ENHYDRIS_ALLOWED_HOSTS");
  const siteHostName = siteUrl ? hostName(siteHost) : null;
  if (siteHostName && !allowedHosts.includes(siteHostName)) allowedHosts.push(siteHostName);
  return {
    databaseUrl: r.databaseUrl("DATABASE_URL"),
    databaseReplicaUrls: r.postgresUrls("DATABASE_REPLICA_URLS"),
    replicaMaxLag: r.number("ENHYDRIS_REPLICA_MAX_LAG", 10),
    port: r.range("PORT", 3000, 1, 65535),
    hostnameBind: env.HOSTNAME_BIND || "0.0.0.0",
    workers: r.range("ENHYDRIS_WORKERS", Math.max(1, availableParallelism()), 1, 256),
    bodyIdleTimeout: r.seconds("ENHYDRIS_BODY_IDLE_TIMEOUT", 60),
    apiThroughNext: r.boolean("ENHYDRIS_API_THROUGH_NEXT", false),
    demoData: r.boolean("ENHYDRIS_DEMO_DATA", true),
    mediaDir: r.string("ENHYDRIS_MEDIA_DIR", "./data/media"),
    pageSize: r.integer("ENHYDRIS_PAGE_SIZE", 20, 1),
    maxPageSize: r.integer("ENHYDRIS_MAX_PAGE_SIZE", 1000, 1),
    usersCanAddContent: r.boolean("ENHYDRIS_USERS_CAN_ADD_CONTENT", false),
    authenticationRequired: r.boolean("ENHYDRIS_AUTHENTICATION_REQUIRED", false),
    defaultPubliclyAvailable: r.boolean("ENHYDRIS_DEFAULT_PUBLICLY_AVAILABLE", true),
    mapDefaultViewport: r.viewport("ENHYDRIS_MAP_DEFAULT_VIEWPORT", [19.3, 34.75, 29.65, 41.8]),
    mapMinViewportSize: r.number("ENHYDRIS_MAP_MIN_VIEWPORT_SIZE", 0.04),
    maxUploadSize: r.integer("ENHYDRIS_MAX_UPLOAD_SIZE", 104857600, 1),
    tokenLifetime: r.integer("ENHYDRIS_TOKEN_LIFETIME", 0, 0),
    loginMaxFailures: r.integer("ENHYDRIS_LOGIN_MAX_FAILURES", 10, 1),
    loginFailureWindow: r.integer("ENHYDRIS_LOGIN_FAILURE_WINDOW", 900, 1),
    passwordResetTimeout: r.integer("ENHYDRIS_PASSWORD_RESET_TIMEOUT", 259200, 1),
    passwordHashCost: r.integer("ENHYDRIS_PASSWORD_HASH_COST", 15, 10, 20),
    sourceMaps: r.boolean("ENHYDRIS_SOURCE_MAPS", true),
    siteUrl,
    allowedHosts,
    siteName: r.string("ENHYDRIS_SITE_NAME", siteHost),
    secretKey: r.string("ENHYDRIS_SECRET_KEY", ""),
    trustProxyHeaders: r.boolean("ENHYDRIS_TRUST_PROXY_HEADERS", false),
    hstsMaxAge: r.integer("ENHYDRIS_HSTS_MAX_AGE", 31_536_000, 0),
    metricsToken: r.string("ENHYDRIS_METRICS_TOKEN", ""),
    corsAllowedOrigins: r.origins("ENHYDRIS_CORS_ALLOWED_ORIGINS"),
    emailHost: r.string("ENHYDRIS_EMAIL_HOST", ""),
    emailPort: r.integer("ENHYDRIS_EMAIL_PORT", 587, 1),
    emailUser: r.string("ENHYDRIS_EMAIL_USER", ""),
    emailPassword: env.ENHYDRIS_EMAIL_PASSWORD ?? "",
    emailSecure: r.boolean("ENHYDRIS_EMAIL_SECURE", false),
    emailFrom: r.string("ENHYDRIS_EMAIL_FROM", ""),
    mapTileUrl: r.string("ENHYDRIS_MAP_TILE_URL", "https://tile.openstreetmap.org/{z}/{x}/{y}.png"),
    mapTileAttribution: r.string("ENHYDRIS_MAP_TILE_ATTRIBUTION", "© OpenStreetMap contributors"),
    jobRunner: r.boolean("ENHYDRIS_JOB_RUNNER", true),
    jobConcurrency: r.integer("ENHYDRIS_JOB_CONCURRENCY", 1, 1),
    jobLeaseSeconds: r.integer("ENHYDRIS_JOB_LEASE_SECONDS", 60, 1),
    jobTimeoutSeconds: r.integer("ENHYDRIS_JOB_TIMEOUT", 600, 1),
    jobMemoryMb: r.integer("ENHYDRIS_JOB_MEMORY", 1024, 64),
    jobNice: r.integer("ENHYDRIS_JOB_NICE", 10, 0, 19),
    replicationTimeoutSeconds: r.integer("ENHYDRIS_REPLICATION_TIMEOUT", 60, 1),
    alarmEmailsPerHour: r.integer("ENHYDRIS_ALARM_EMAILS_PER_HOUR", 10, 0),
    outboundAllow: r.outboundAllow("ENHYDRIS_OUTBOUND_ALLOW"),
    telemetryTimeoutSeconds: r.integer("ENHYDRIS_TELEMETRY_TIMEOUT", 60, 1),
    telemetryConcurrency: r.integer("ENHYDRIS_TELEMETRY_CONCURRENCY", 8, 1),
    registrationOpen: r.boolean("ENHYDRIS_REGISTRATION_OPEN", false),
    termsFile: r.string("ENHYDRIS_TERMS_FILE", ""),
    activationDays: r.integer("ENHYDRIS_ACTIVATION_DAYS", 7, 1),
    registrationRate: r.integer("ENHYDRIS_REGISTRATION_RATE", 10, 1),
  };
}

/** The settings, or an exit naming the invalid variable (start-up of the server and of the worker). */
export function settingsOrExit(env: Env = process.env): Settings {
  try {
    return parseSettings(env);
  } catch (e) {
    if (e instanceof SettingsError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
}

const KEY = Symbol.for("enhydris.settings");
type Holder = { [KEY]?: Settings };

/** The process's settings (parsed on first use). */
export function settings(): Settings {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= parseSettings(process.env));
}

/** Forgets the parsed settings, so that the next use reads the environment again (scripts, tests). */
export function reloadSettings(): void {
  delete (globalThis as Holder)[KEY];
}
