import { expect } from "vitest";

/** A small HTTP client for tests: no redirects followed, bodies read as text. */
/** The API's bodies of 401 and 403 (api.md §15), as the tests compare them. */
export const UNAUTHENTICATED = '{"detail":"Authentication credentials were not provided."}';
export const FORBIDDEN = '{"detail":"You do not have permission to perform this action."}';

/** The chart's notice as the server renders it: the words alone are also in the messages the
 * page hands to its browser code, whether or not the notice shows. */
export const NOT_PUBLIC_NOTICE = "<strong>The data of this time series are not public.</strong>";

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** form-encoded body (string pairs, repeated keys allowed) */
  form?: Record<string, string | string[]> | [string, string][];
  /** JSON body */
  json?: unknown;
  /** raw body with its content type */
  body?: BodyInit;
}

export function api(base: string) {
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.Authorization = `Token ${options.token}`;
    let body: BodyInit | undefined = options.body;
    if (options.form) {
      const pairs = Array.isArray(options.form) ? options.form
        : Object.entries(options.form).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]));
      body = new URLSearchParams(pairs).toString();
      headers["Content-Type"] ??= "application/x-www-form-urlencoded";
    } else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["Content-Type"] ??= "application/json";
    }
    const response = await fetch(base + path, { method, headers, body, redirect: "manual" });
    const text = await response.text();
    let json: unknown = undefined;
    if ((response.headers.get("content-type") ?? "").includes("json") && text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, text, json };
  }
  return {
    request,
    get: (path: string, options?: RequestOptions) => request("GET", path, options),
    head: (path: string, options?: RequestOptions) => request("HEAD", path, options),
    post: (path: string, options?: RequestOptions) => request("POST", path, options),
    put: (path: string, options?: RequestOptions) => request("PUT", path, options),
    patch: (path: string, options?: RequestOptions) => request("PATCH", path, options),
    delete: (path: string, options?: RequestOptions) => request("DELETE", path, options),
    options: (path: string, options?: RequestOptions) => request("OPTIONS", path, options),
  };
}

/** A GET through node:http, for headers that fetch may not send (Host). */
export async function rawGet(base: string, path: string, headers: Record<string, string>): Promise<TestResponse> {
  return rawRequest(base, "GET", path, headers);
}

/** A request through node:http, for headers that fetch may not send (Host); `body` is sent as is. */
export async function rawRequest(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<TestResponse> {
  const { request } = await import("node:http");
  const url = new URL(base + path);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
        let json: unknown;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: h, text, json });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A refusal page of the HTTP edge in Greek (public.md §3): its status, `<html lang="el">`, its
 * title, the sentences it says, and none of the English one it must not.
 */
export function expectGreekRefusal(response: { status: number; body: string }, page: { status: number; title: string; says: string[]; english: string }): void {
  expect(response.status).toBe(page.status);
  expect(response.body).toContain('<html lang="el">');
  expect(response.body).toContain(`<h1>${page.title} (${page.status})</h1>`);
  for (const sentence of page.says) expect(response.body).toContain(sentence);
  expect(response.body).not.toContain(page.english);
}
