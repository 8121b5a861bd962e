import { capability as access } from "@/lib/access";
import { capability as accounts } from "@/lib/accounts";
import { capability as activity } from "@/lib/activity";
import { PRUNE_KIND, upkeep } from "@/lib/jobs/maintenance";
import { CONVERT_KIND, convertRecords } from "@/lib/records/convert";
import { registerBackgroundWork, type BackgroundWork } from "@/lib/jobs/registry";
import { capability as legacy } from "@/lib/legacy";
import { capability as lookups } from "@/lib/lookups";
import { capability as processing } from "@/lib/processing";
import { capability as replication } from "@/lib/replication";
import type { Route } from "@/lib/routing/router";
import { capability as series } from "@/lib/series";
import { capability as stations } from "@/lib/stations";
import { capability as synoptic } from "@/lib/synoptic";
import { capability as telemetry } from "@/lib/telemetry";

/**
 * The registration of the capabilities (docs/decisions/0020-layers.md): a capability is one folder
 * of lib/ with a face (its index.ts), and one line here. What a capability registers:
 * - `apiRoutes`: its routes under /api/ (lib/api/routes.ts takes them in this order; the first
 *   match wins, and the older interface's come last);
 * - `jobKinds`, `reactions`, `upkeep`: its background work (lib/jobs/registry.ts).
 */
export interface Capability extends BackgroundWork {
  readonly apiRoutes?: () => Route[];
}

export const CAPABILITIES: readonly Capability[] = [
  stations, series, processing, activity, lookups, replication, synoptic, telemetry, accounts, access, legacy,
];

/** The kernel's own background work: the hourly upkeep (lib/jobs/maintenance.ts) and the records' conversion into day blocks (lib/records/convert.ts). */
const KERNEL: BackgroundWork = {
  name: "kernel",
  jobKinds: [{ kind: PRUNE_KIND, handler: upkeep, pool: "upkeep" }, { kind: CONVERT_KIND, handler: convertRecords, pool: "upkeep" }],
};

/** Registers every capability's background work in this process; every entry point calls it first. */
export function registerCapabilities(): void {
  registerBackgroundWork([KERNEL, ...CAPABILITIES]);
}

/** The API routes of every capability, in matching order. */
export function capabilityRoutes(): Route[] {
  return CAPABILITIES.flatMap((c) => c.apiRoutes?.() ?? []);
}
