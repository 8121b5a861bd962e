import type { JobKind } from "@/lib/jobs/registry";
import { replicationRun } from "@/lib/replication/job";
import { replicationRoutes } from "@/lib/replication/api";
import { REPLICATION_KIND } from "@/lib/replication/sources";

/** Replication from other instances: what lib/capabilities registers of it. */
export const capability = {
  name: "replication",
  apiRoutes: replicationRoutes,
  jobKinds: [{ kind: REPLICATION_KIND, handler: replicationRun, pool: "replication" } satisfies JobKind],
};
