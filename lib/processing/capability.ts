import type { JobKind, Reactions } from "@/lib/jobs/registry";
import { processingRoutes } from "@/lib/processing/api";
import { processRunHandler } from "@/lib/processing/run";
import { groupSeriesChangedStatements, PROCESS_KIND, sourceWrittenStatements, stationZoneChangedStatements } from "@/lib/processing/state";

/** Automatic processing: what lib/capabilities registers of it. */
export const capability = {
  name: "processing",
  apiRoutes: processingRoutes,
  jobKinds: [{ kind: PROCESS_KIND, handler: processRunHandler, pool: "processing" } satisfies JobKind],
  // processing.md §2: the processes that read what changed run again, in the change's transaction.
  reactions: {
    "series-written": (change, dialect) => sourceWrittenStatements(change.seriesId, change.first, dialect),
    "group-series-changed": (change, dialect) => groupSeriesChangedStatements(change.groupIds, dialect),
    "station-zone-changed": (change, dialect) => stationZoneChangedStatements(change.stationId, dialect),
  } satisfies Reactions,
};
