import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import LoginForm from "@/components/accounts/LoginForm";
import { loginErrorMessage } from "@/components/accounts/loginMessages";
import { settings } from "@/lib/config";
import { currentUser } from "@/lib/site/current-user";
import { safeNextPath } from "@/lib/site/paths";

export const metadata: Metadata = { title: "Log in" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

/** Only a path of this site; an absolute callbackUrl of next-auth is reduced to its path when it is ours. */
function nextPath(value: string, host: string | null): string {
  if (!value) return "/";
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      if (!host || url.host !== host) return "/";
      return url.pathname + url.search + url.hash;
    } catch {
      return "/";
    }
  }
  // The same rule as the form's redirect: a browser drops tabs and line breaks from a link, so "/\t/evil.example" leads off-site.
  return safeNextPath(value);
}

/** `{site}/accounts/login/` (api.md §16). */
export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const sp = await searchParams;
  const host = (await headers()).get("host");
  const next = nextPath(one(sp.next) || one(sp.callbackUrl), host);
  const user = await currentUser();
  return (
    <div className="narrow">
      <div className="card">
        <h1>Log in</h1>
        {user && (
          <p className="message">
            You are logged in as <strong>{user.username}</strong>. Log in below to switch accounts, or <Link href={next}>continue</Link>.
          </p>
        )}
        <LoginForm next={next} initialError={loginErrorMessage(one(sp.error) || null)} />
        <p className="form-footer">
          <Link href="/accounts/password/reset/">Forgot your password?</Link>
          {settings().registrationOpen && <> · <Link href="/accounts/register/">Register</Link></>}
        </p>
      </div>
    </div>
  );
}
