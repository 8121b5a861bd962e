import { unauthorized } from "@/lib/http/errors";
import { clientAddress } from "@/lib/auth/client-address";
import { readSiteSession } from "@/lib/auth/session";
import { clearNameAndAccountFailures, ensureNotThrottled, isPossibleLoginName, recordFailure, throttleKeys } from "@/lib/auth/throttle";
import { findToken } from "@/lib/auth/tokens";
import { checkCredentials, findAuthUser, findLoginUser, type AuthUser } from "@/lib/auth/users";

export type { AuthUser };
/** "current": Token/Bearer header or site session; "legacy": also HTTP Basic (legacy.md §1.1). */
export type AuthScheme = "current" | "legacy";

export interface Auth {
  readonly user: AuthUser | null;
  readonly via: "token" | "session" | "basic" | null;
  readonly tokenId: number | null;
  readonly sessionId: string | null;
}

export const ANONYMOUS: Auth = { user: null, via: null, tokenId: null, sessionId: null };

/**
 * Identifies the caller. Credential problems are 401 with the messages of api.md §2 (current)
 * or legacy.md §1.1 (legacy), on every request that carries them.
 */
export async function authenticate(request: Request, scheme: AuthScheme): Promise<Auth> {
  const challenge = scheme === "legacy" ? "Basic" : "Token";
  const header = request.headers.get("authorization");
  if (header !== null && header.trim() !== "") {
    const parts = header.trim().split(/\s+/);
    const keyword = parts[0].toLowerCase();
    if (keyword === "token" || keyword === "bearer") {
      if (parts.length === 1) throw unauthorized(challenge, "Invalid token header. No credentials provided.");
      if (parts.length > 2) throw unauthorized(challenge, "Invalid token header. Token string should not contain spaces.");
      const token = await findToken(parts[1]);
      if (!token) throw unauthorized(challenge, "Invalid token.");
      const { user } = token;
      if (!user || !user.isActive) throw unauthorized(challenge, "User inactive or deleted.");
      return { user, via: "token", tokenId: token.id, sessionId: null };
    }
    if (keyword === "basic" && scheme === "legacy") return basicAuth(request, parts);
    // Other schemes are ignored on the current interface; on the legacy one the header alone decides.
    if (scheme === "legacy") return ANONYMOUS;
  }
  const session = await readSiteSession(request);
  if (!session) return ANONYMOUS;
  const user = await findAuthUser(session.userId);
  if (!user || !user.isActive) return ANONYMOUS;
  return { user, via: "session", tokenId: null, sessionId: session.id };
}

async function basicAuth(request: Request, parts: string[]): Promise<Auth> {
  const invalidHeader = () => unauthorized("Basic", "Invalid basic header.");
  if (parts.length !== 2 || !/^[A-Za-z0-9+/]*={0,2}$/.test(parts[1])) throw invalidHeader();
  const decoded = Buffer.from(parts[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw invalidHeader();
  const name = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  // The account the name logs in to counts too (its username and e-mail address together, api.md §12.1).
  const possible = isPossibleLoginName(name);
  const account = name && possible ? await findLoginUser(name, null) : null;
  const keys = throttleKeys(name, clientAddress(request), account?.id ?? null);
  await ensureNotThrottled(keys);
  const result = possible ? await checkCredentials(name, null, password) : { ok: false as const, reason: "invalid" as const };
  if (!result.ok) {
    if (result.reason === "inactive") throw unauthorized("Basic", "User inactive or deleted.");
    await recordFailure(keys);
    throw unauthorized("Basic", "Invalid username/password.");
  }
  await clearNameAndAccountFailures(name, result.user.id);
  return { user: result.user, via: "basic", tokenId: null, sessionId: null };
}
