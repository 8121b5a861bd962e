import { headers } from "next/headers";
import { nonceOf, PAGE_NONCE_HEADER } from "@/lib/http/security-headers.mjs";

/**
 * The nonce of this page's scripts, for an inline script of its own: the server gives every page
 * request its policy in a request header (lib/server/serve.ts), as Next reads it for its scripts.
 */
export async function pageNonce(): Promise<string | null> {
  return nonceOf((await headers()).get(PAGE_NONCE_HEADER));
}
