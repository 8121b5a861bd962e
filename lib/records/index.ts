import { db } from "@/lib/db";
import { PostgresRecordsStore } from "@/lib/records/postgres-store";
import { SqliteRecordsStore } from "@/lib/records/sqlite-store";
import type { RecordsStore } from "@/lib/records/types";

export type * from "@/lib/records/types";
export { ReplaceRefused } from "@/lib/records/types";

const KEY = Symbol.for("enhydris.records");
type Holder = { [KEY]?: { store: RecordsStore; db: unknown } };

/** The records store of the process's database. */
export function records(): RecordsStore {
  const holder = globalThis as Holder;
  const current = db();
  if (!holder[KEY] || holder[KEY].db !== current) {
    holder[KEY]?.store.close?.();
    const store = current.sqlite ? new SqliteRecordsStore(current, current.sqlite) : new PostgresRecordsStore(current.pool!);
    holder[KEY] = { store, db: current };
  }
  return holder[KEY].store;
}
