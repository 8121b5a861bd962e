import { lookupRoutes } from "@/lib/lookups/api";

/** The lookups (variables, units, organizations, …): what lib/capabilities registers of them. */
export const capability = { name: "lookups", apiRoutes: lookupRoutes };
