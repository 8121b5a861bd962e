import { legacyRoutes } from "@/lib/legacy/routes";

/** The older interface (legacy.md): what lib/capabilities registers of it. */
export const capability = { name: "legacy", apiRoutes: legacyRoutes };
