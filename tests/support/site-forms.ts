import type { TestResponse } from "@/tests/support/http";

/**
 * The management pages' forms as a browser without JavaScript uses them: GET the page, take a
 * form's hidden fields (the server action's reference, the form token, `last_modified`…), add the
 * fields typed, and POST it all as multipart to the page's own URL, as the form's `action=""`
 * says. Tests check what comes back: a 303 to the object's page, or the page again with the
 * messages next to the fields.
 */
const decode = (s: string) => s.replace(/<!-- -->/g, "").replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

export interface SiteForm {
  url: string;
  hidden: [string, string][];
}

/** The forms of an HTML page by their aria-label, with their hidden fields. */
export function formsOf(html: string, url: string): Map<string, SiteForm> {
  const forms = new Map<string, SiteForm>();
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const label = /aria-label="([^"]*)"/.exec(m[1])?.[1];
    if (!label) continue;
    const hidden: [string, string][] = [];
    for (const input of m[2].matchAll(/<input\b([^>]*?)\/?>/g)) {
      const attrs = input[1];
      if (!/type="hidden"/.test(attrs)) continue;
      const name = /name="([^"]*)"/.exec(attrs)?.[1];
      if (name === undefined) continue;
      hidden.push([decode(name), decode(/value="([^"]*)"/.exec(attrs)?.[1] ?? "")]);
    }
    forms.set(decode(label), { url, hidden });
  }
  return forms;
}

export type Fields = [string, string | Blob][] | Record<string, string | string[]>;

function pairs(fields: Fields): [string, string | Blob][] {
  return Array.isArray(fields) ? fields : Object.entries(fields).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]));
}

export function siteForms(base: string) {
  async function page(path: string, cookie: string): Promise<TestResponse> {
    const r = await fetch(base + path, { headers: { Cookie: cookie }, redirect: "manual" });
    return { status: r.status, headers: r.headers, text: await r.text(), json: undefined };
  }

  /** A form of the page at `path`, found by its label. */
  async function form(path: string, cookie: string, label: string): Promise<SiteForm> {
    const r = await page(path, cookie);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    const found = formsOf(r.text, path).get(label);
    if (!found) throw new Error(`no form "${label}" on ${path}: ${[...formsOf(r.text, path).keys()].join(", ")}`);
    return found;
  }

  /**
   * Posts the form with the fields typed (replacing hidden fields of the same names), as a
   * browser does: multipart, with an Origin header of the site.
   */
  async function submit(f: SiteForm, fields: Fields, cookie: string, options: { drop?: string[]; origin?: string } = {}): Promise<TestResponse> {
    const typed = pairs(fields);
    const names = new Set([...typed.map(([k]) => k), ...(options.drop ?? [])]);
    const body = new FormData();
    for (const [k, v] of f.hidden) if (!names.has(k)) body.append(k, v);
    for (const [k, v] of typed) body.append(k, v);
    const r = await fetch(base + f.url, { method: "POST", body, redirect: "manual", headers: { Cookie: cookie, Origin: options.origin ?? base } });
    return { status: r.status, headers: r.headers, text: await r.text(), json: undefined };
  }

  return { page, form, submit };
}

/** The messages shown next to the fields of a re-rendered page: the text of each `.field-errors` list, in page order. */
export function fieldMessages(html: string): string[] {
  return [...html.matchAll(/<ul class="field-errors"[^>]*>([\s\S]*?)<\/ul>/g)]
    .flatMap((m) => [...m[1].matchAll(/<li>([\s\S]*?)<\/li>/g)].map((li) => decode(li[1])));
}

/** The messages of the form's status box (form-level errors). */
export function formMessages(html: string): string[] {
  return [...html.matchAll(/<div class="form-errors" role="alert">([\s\S]*?)<\/div>/g)]
    .flatMap((m) => [...m[1].matchAll(/<p>([\s\S]*?)<\/p>/g)].map((p) => decode(p[1])));
}
