import { deleteEndedSiteSessions } from "@/lib/auth/session";
import { deleteExpiredFailures } from "@/lib/auth/throttle";
import { accountRoutes } from "@/lib/accounts/routes";
import { deleteExpiredRegistrations } from "@/lib/accounts/registration";
import { deleteExpiredCaptchas } from "@/lib/auth/captcha";

/** Accounts, logins and passwords: what lib/capabilities registers of them. */
export const capability = {
  name: "accounts",
  apiRoutes: accountRoutes,
  upkeep: [
    { name: "site_session", run: deleteEndedSiteSessions },
    { name: "login_failure", run: deleteExpiredFailures },
    { name: "pending_activation", run: () => deleteExpiredRegistrations() },
    { name: "captcha_used", run: deleteExpiredCaptchas },
  ],
};
