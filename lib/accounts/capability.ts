import { deleteEndedSiteSessions } from "@/lib/auth/session";
import { deleteExpiredFailures } from "@/lib/auth/throttle";
import { accountRoutes } from "@/lib/accounts/routes";

/** Accounts, logins and passwords: what lib/capabilities registers of them. */
export const capability = {
  name: "accounts",
  apiRoutes: accountRoutes,
  upkeep: [
    { name: "site_session", run: deleteEndedSiteSessions },
    { name: "login_failure", run: deleteExpiredFailures },
  ],
};
