import { accessRoutes } from "@/lib/access/api";
import { accessUpkeep } from "@/lib/access/expiry";
import { MAIL_KIND, sendAccessMail } from "@/lib/access/mail";

/** Access requests to protected data: what lib/capabilities registers of them. */
export const capability = {
  name: "access",
  apiRoutes: accessRoutes,
  jobKinds: [{ kind: MAIL_KIND, handler: sendAccessMail, pool: "mail" as const }],
  upkeep: [accessUpkeep],
};
