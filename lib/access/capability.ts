import { accessRoutes } from "@/lib/access/api";
import { accessUpkeep, endDueAccesses } from "@/lib/access/expiry";
import { END_KIND } from "@/lib/access/requests";
import { MAIL_KIND, sendAccessMail } from "@/lib/access/mail";

/** Access requests to protected data: what lib/capabilities registers of them. */
export const capability = {
  name: "access",
  apiRoutes: accessRoutes,
  jobKinds: [{ kind: MAIL_KIND, handler: sendAccessMail, pool: "mail" as const }, { kind: END_KIND, handler: endDueAccesses, pool: "upkeep" as const }],
  upkeep: [accessUpkeep],
};
