import { resolve } from "node:path";

export type Dialect = "sqlite" | "postgres";

export type DatabaseTarget =
  | { dialect: "sqlite"; path: string }
  | { dialect: "postgres"; url: string };

/** `file:<path>` (relative to the working directory) or `postgres://…`. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith("file:")) {
    const path = url.slice("file:".length).replace(/\?.*$/, "");
    if (!path) throw new Error("DATABASE_URL: file: needs a path");
    return { dialect: "sqlite", path: path === ":memory:" ? path : resolve(/* turbopackIgnore: true */ path) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: "postgres", url };
  throw new Error(`DATABASE_URL must be file:<path> or postgres://…, not ${JSON.stringify(url)}`);
}
