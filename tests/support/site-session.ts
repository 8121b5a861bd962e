import { db } from "@/lib/db";
import { SESSION_MAX_AGE } from "@/lib/auth/session";

/** Signs in on the site as a browser would (next-auth credentials flow) and returns the cookies. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** The cookies as [name, value] pairs (to hand a browser the session). */
  entries(): [string, string][] {
    return [...this.cookies];
  }
}

export async function siteLogin(base: string, username: string, password: string, jar = new CookieJar()): Promise<{ jar: CookieJar; error: string | null }> {
  const csrf = await fetch(`${base}/accounts/auth/csrf`, { headers: { Cookie: jar.header() } });
  jar.take(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${base}/accounts/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.header() },
    body: new URLSearchParams({ csrfToken, username, password, callbackUrl: `${base}/`, json: "true" }),
  });
  jar.take(response);
  const { url } = (await response.json()) as { url: string };
  return { jar, error: new URL(url, base).searchParams.get("error") };
}

/** Moves the login of every site session `userId` has now to a minute past SESSION_MAX_AGE ago. */
export async function ageSiteSessions(userId: number): Promise<void> {
  const created = new Date(Date.now() - SESSION_MAX_AGE * 1000 - 60_000);
  const { count } = await db().write((tx) => tx.siteSession.updateMany({ where: { userId }, data: { created } }));
  if (count === 0) throw new Error(`user ${userId} has no site session to age`);
}
