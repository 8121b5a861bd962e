import { json } from "@/lib/http/respond";
import type { RouteContext } from "@/lib/routing/router";
import { requestOrigin } from "@/lib/http/urls";
import { openApiDocument } from "@/lib/api/openapi";
import { standalonePage } from "@/lib/site/chrome";
import { escapeHtml } from "@/lib/site/html";

/** GET schema/ and docs/ (api.md §3): the OpenAPI document and a page that presents it. */
export async function apiSchema(ctx: RouteContext): Promise<Response> {
  return json(openApiDocument(requestOrigin(ctx.request)));
}

type Json = Record<string, unknown>;

/** The object whose fields the page lists for a named schema: itself, or the items of a list of objects (else null). */
function listedObject(schema: Json): Json | null {
  if (schema.properties) return schema;
  const items = schema.type === "array" ? (schema.items as Json | undefined) : undefined;
  return items?.properties ? items : null;
}

/** A readable type, as HTML: named schemas link to their definitions under Objects (those without fields are spelled out). */
function typeOf(schema: Json | undefined, components: Json): string {
  if (!schema) return "";
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    const named = components[name] as Json | undefined;
    if (named && !listedObject(named) && !named.$ref) return typeOf(named, components);
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map((s) => typeOf(s, components)).join(" | ");
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as Json[]).map((s) => typeOf(s, components)).join(" | ");
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map((v) => escapeHtml(String(v))).join(" | ");
  const type = escapeHtml(Array.isArray(schema.type) ? (schema.type as string[]).join(" | ") : String(schema.type ?? "any"));
  if (schema.type === "array" && schema.items) return `array of ${typeOf(schema.items as Json, components)}`;
  return type;
}

function constraints(schema: Json): string {
  const s = Array.isArray(schema.anyOf) ? { ...(schema.anyOf as Json[])[0], description: schema.description } : schema;
  const parts: string[] = [];
  if (typeof s.format === "string" && s.format !== "binary") parts.push(`format ${s.format}`);
  if (typeof s.maxLength === "number") parts.push(`≤ ${s.maxLength} characters`);
  if (typeof s.minimum === "number" && s.minimum > -1e15) parts.push(`≥ ${s.minimum}`);
  if (typeof s.maximum === "number" && s.maximum < 1e15) parts.push(`≤ ${s.maximum}`);
  if (s.format === "binary") parts.push("a file part (multipart)");
  if (typeof s.description === "string") parts.push(s.description);
  return parts.join("; ");
}

function fieldsTable(schema: Json | undefined, components: Json): string {
  const resolved = schema && typeof schema.$ref === "string" ? (components[(schema.$ref as string).split("/").pop()!] as Json) : schema;
  // One alternative per type (a process body): a table for each, named by its type.
  if (Array.isArray(resolved?.anyOf) && (resolved.anyOf as Json[]).every((alternative) => alternative.properties)) {
    return (resolved.anyOf as Json[]).map((alternative) => {
      const type = ((alternative.properties as Record<string, Json>).type?.const);
      return `${type === undefined ? "" : `<p class="help">type <code>${escapeHtml(String(type))}</code>:</p>`}${fieldsTable(alternative, components)}`;
    }).join("");
  }
  const properties = (resolved?.properties ?? {}) as Record<string, Json>;
  const required = new Set((resolved?.required ?? []) as string[]);
  if (!Object.keys(properties).length) return "";
  const rows = Object.entries(properties).map(([name, s]) =>
    `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? " <strong>required</strong>" : ""}</td><td>${typeOf(s, components)}</td><td>${escapeHtml(constraints(s))}</td></tr>`);
  return `<table class="doc-table"><thead><tr><th>Field</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

export async function apiDocs(ctx: RouteContext): Promise<Response> {
  const doc = openApiDocument(requestOrigin(ctx.request)) as { info: Json; paths: Record<string, Record<string, Json>>; components: { schemas: Json } };
  const components = doc.components.schemas;
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = (op.tags as string[])[0];
      const params = ((op.parameters ?? []) as Json[]).filter((p) => p.in === "query");
      const body = op.requestBody as Json | undefined;
      const bodySchema = body ? (Object.values(body.content as Json)[0] as Json).schema as Json : undefined;
      const bodyTypes = body ? Object.keys(body.content as Json).join(", ") : "";
      const responses = Object.entries(op.responses as Record<string, Json>);
      const ok = responses.filter(([code]) => code < "400");
      const errors = responses.filter(([code]) => code >= "400").map(([code]) => code);
      const section = `<section class="doc-op" id="${escapeHtml(`${method}-${path}`)}">
<h3><span class="method method-${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(String(op.summary))}. ${escapeHtml(String(op.description ?? ""))}</p>
${params.length ? `<h4>Query parameters</h4><table class="doc-table"><tbody>${params.map((p) => `<tr><td><code>${escapeHtml(String(p.name))}</code></td><td>${escapeHtml(String(p.description ?? ""))}</td></tr>`).join("")}</tbody></table>` : ""}
${bodySchema ? `<h4>Request fields</h4><p class="help">${escapeHtml(bodyTypes)}</p>${fieldsTable(bodySchema, components)}` : ""}
${ok.map(([code, r]) => {
    const content = r.content as Record<string, Json> | undefined;
    const schema = content && Object.values(content)[0]?.schema as Json | undefined;
    const media = content ? Object.keys(content).join(", ") : "no body";
    return `<h4>${escapeHtml(code)} — ${escapeHtml(String(r.description))}</h4><p class="help">${escapeHtml(media)}${schema ? `: ${typeOf(schema, components)}` : ""}</p>`;
  }).join("")}
${errors.length ? `<p class="help">Errors: ${errors.join(", ")}</p>` : ""}
</section>`;
      (byTag.get(tag) ?? byTag.set(tag, []).get(tag)!).push(section);
    }
  }
  const schemas = Object.entries(components).flatMap(([name, s]) => {
    const object = listedObject(s as Json);
    if (!object) return [];
    const list = object === s ? "" : "<p class=\"help\">A list of objects with these fields.</p>";
    return [`<section class="doc-op" id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${list}${fieldsTable(object, components)}</section>`];
  });
  const toc = [...byTag.keys()].map((tag) => `<li><a href="#tag-${escapeHtml(tag.replace(/\W+/g, "-"))}">${escapeHtml(tag)}</a></li>`).join("");
  const body = `<style>
.doc-table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; font-size: 0.95rem; }
.doc-table th, .doc-table td { border-bottom: 1px solid #d7dde3; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
.doc-table th { background: #eef2f5; }
.doc-op { border-top: 1px solid #d7dde3; padding-top: 0.5rem; margin-top: 1rem; }
.method { display: inline-block; min-width: 4.5em; text-align: center; border-radius: 4px; padding: 0 0.4em; color: #fff; font-size: 0.85em; }
.method-get { background: #1f6f43; } .method-post { background: #1b4f8a; } .method-put, .method-patch { background: #7a5200; } .method-delete { background: #9b1c1c; }
.doc-toc { columns: 2; }
/* Long names and paths break anywhere rather than widen the page (a phone's 390 px). */
.doc-table th, .doc-table td, .doc-op h3 code { overflow-wrap: anywhere; }
@media (max-width: 600px) {
  .doc-toc { columns: 1; }
  .doc-table { font-size: 0.85rem; }
  .doc-table th, .doc-table td { padding: 0.3rem 0.25rem; }
}
</style>
<h1>API reference</h1>
<p>${escapeHtml(String(doc.info.description))}</p>
<p>The machine-readable form is <a href="/api/schema/">/api/schema/</a> (OpenAPI 3.1).</p>
<nav aria-label="Sections"><ul class="doc-toc">${toc}<li><a href="#schemas">Objects</a></li></ul></nav>
${[...byTag].map(([tag, sections]) => `<h2 id="tag-${escapeHtml(tag.replace(/\W+/g, "-"))}">${escapeHtml(tag)}</h2>${sections.join("\n")}`).join("\n")}
<h2 id="schemas">Objects</h2>
${schemas.join("\n")}`;
  const user = ctx.auth.user ? { username: ctx.auth.user.username } : null;
  return new Response(standalonePage({ title: "API reference", user, body, wide: true }), { headers: { "Content-Type": "text/html; charset=utf-8" } });
}
