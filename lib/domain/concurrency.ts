import type { Tx } from "@/lib/db";
import { StaleObject } from "@/lib/domain/errors";

/**
 * Optimistic concurrency (management.md §1 "No lost updates"): a change made from a form that
 * was opened when the object's `last_modified` was `since` goes ahead only if it still is. The
 * check and the new `last_modified` are one conditional UPDATE at the start of the change's
 * transaction, so two saves of the same version cannot both pass (the second one waits for the
 * first one's row lock on PostgreSQL, or for the single writer on SQLite, and then finds a newer
 * version).
 */
export type Versioned = "station" | "timeseriesGroup" | "timeseries" | "gentityFile" | "gentityImage" | "event"
  | "process" | "replicationSource" | "stationType" | "eventType" | "variable" | "fileType" | "organization" | "person" | "unitOfMeasurement" | "garea" | "synopticGroup";

/** What a change may be checked against: the `last_modified` its form was opened with (undefined: no check). */
export interface ChangeOptions {
  unchangedSince?: Date | null;
}

type Delegate = { updateMany(args: { where: { id: number; lastModified: Date | null }; data: { lastModified: Date } }): Promise<{ count: number }> };

/** Throws StaleObject (naming the object as `what`) when the row changed since `options.unchangedSince`. */
export async function ensureUnchanged(tx: Tx, model: Versioned, id: number, options: ChangeOptions | undefined, what: string): Promise<void> {
  if (options?.unchangedSince === undefined) return;
  const delegate = tx[model] as unknown as Delegate;
  const { count } = await delegate.updateMany({ where: { id, lastModified: options.unchangedSince }, data: { lastModified: new Date() } });
  if (count === 0) throw new StaleObject(what);
}
