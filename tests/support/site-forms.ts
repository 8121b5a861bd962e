import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestResponse } from "@/tests/support/http";
import { ROOT } from "@/tests/support/server";

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
  /** The form's hidden fields: the server action's reference, the form token, `last_modified`… */
  hidden: [string, string][];
  /** Every value the browser would send as the form is shown (hidden, typed, ticked, selected), in page order. */
  shown: [string, string][];
}

const attr = (attrs: string, name: string) => {
  const m = new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attrs);
  return m ? decode(m[1]) : undefined;
};
const flag = (attrs: string, name: string) => new RegExp(`(?:^|\\s)${name}(=""|\\s|$)`).test(attrs);

/** The controls of a form's HTML as a browser submits them (no file inputs: an empty one sends nothing the server reads). */
function controls(html: string): { hidden: [string, string][]; shown: [string, string][] } {
  const hidden: [string, string][] = [];
  const shown: [string, string][] = [];
  for (const m of html.matchAll(/<input\b([^>]*?)\/?>|<textarea\b([^>]*)>([\s\S]*?)<\/textarea>|<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
    if (m[1] !== undefined) {
      const attrs = m[1];
      const name = attr(attrs, "name");
      const type = (attr(attrs, "type") ?? "text").toLowerCase();
      if (name === undefined || flag(attrs, "disabled") || ["file", "submit", "button", "reset", "image"].includes(type)) continue;
      if ((type === "checkbox" || type === "radio") && !flag(attrs, "checked")) continue;
      const value = attr(attrs, "value") ?? (type === "checkbox" || type === "radio" ? "on" : "");
      if (type === "hidden") hidden.push([name, value]);
      shown.push([name, value]);
    } else if (m[2] !== undefined) {
      const name = attr(m[2], "name");
      if (name !== undefined) shown.push([name, decode(m[3]).replace(/^\n/, "")]);
    } else {
      const name = attr(m[4], "name");
      if (name === undefined) continue;
      const options = [...m[5].matchAll(/<option\b([^>]*)>([\s\S]*?)<\/option>/g)];
      const chosen = options.find((o) => flag(o[1], "selected")) ?? options[0];
      if (chosen) shown.push([name, attr(chosen[1], "value") ?? decode(chosen[2])]);
    }
  }
  return { hidden, shown };
}

/** The forms of an HTML page by their aria-label, with their fields. */
export function formsOf(html: string, url: string): Map<string, SiteForm> {
  const forms = new Map<string, SiteForm>();
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const label = /aria-label="([^"]*)"/.exec(m[1])?.[1];
    if (!label) continue;
    forms.set(decode(label), { url, ...controls(m[2]) });
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

  /** A form of the page at `path`, found by its label (or the first label that matches). */
  async function form(path: string, cookie: string, label: string | RegExp): Promise<SiteForm> {
    const r = await page(path, cookie);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    const all = formsOf(r.text, path);
    const found = typeof label === "string" ? all.get(label) : [...all].find(([k]) => label.test(k))?.[1];
    if (!found) throw new Error(`no form "${label}" on ${path}: ${[...formsOf(r.text, path).keys()].join(", ")}`);
    return found;
  }

  /**
   * Posts the form with the fields typed (replacing the form's fields of the same names), as a
   * browser does: multipart, with an Origin header of the site. The form's other fields are
   * sent as shown (`shown`), or only its hidden ones with `hiddenOnly`.
   */
  async function submit(f: SiteForm, fields: Fields, cookie: string, options: { drop?: string[]; origin?: string; hiddenOnly?: boolean } = {}): Promise<TestResponse> {
    const typed = pairs(fields);
    const names = new Set([...typed.map(([k]) => k), ...(options.drop ?? [])]);
    const body = new FormData();
    for (const [k, v] of options.hiddenOnly ? f.hidden : f.shown) if (!names.has(k)) body.append(k, v);
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

/** The id of a server action, as the build's manifest (and every page that uses it) names it. */
export function actionId(file: string, name: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, process.env.ENHYDRIS_DIST_DIR || ".next", "server", "server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { filename: string; exportedName: string }>;
  };
  const found = Object.entries(manifest.node).find(([, v]) => v.filename === file && v.exportedName === name);
  if (!found) throw new Error(`no server action ${name} in ${file}`);
  return found[0];
}
