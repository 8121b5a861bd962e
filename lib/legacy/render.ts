import { csvRow } from "@/lib/formats/csv";
import { escapeHtml } from "@/lib/site/html";

/**
 * The text representations of the model-named endpoints (legacy.md §3.2–3.5): XML, CSV and a
 * readable HTML page, from the JSON objects and the model's field order.
 */
export type JsonObject = Record<string, unknown>;

/** §3.2: the text of a scalar JSON value (strings as is, numbers as JSON, null empty). */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  return JSON.stringify(value);
}

/** §3.2 for CSV and HTML: arrays joined by one space. */
export function valueText(value: unknown): string {
  return Array.isArray(value) ? value.map(scalarText).join(" ") : scalarText(value);
}

// ---------------------------------------------------------------------------------------
// XML (§3.3)

/** Characters XML 1.0 forbids: controls other than tab, LF and CR, lone surrogates, U+FFFE/U+FFFF. */
const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlText(text: string): string {
  return text.replace(XML_FORBIDDEN, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function xmlValue(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => `<list-item>${xmlValue(item)}</list-item>`).join("");
  if (value !== null && typeof value === "object") return xmlFields(value as JsonObject, Object.keys(value));
  return xmlText(scalarText(value));
}

function xmlFields(object: JsonObject, fields: readonly string[]): string {
  return fields.map((name) => `<${name}>${xmlValue(object[name])}</${name}>`).join("");
}

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n';

export function renderXml(body: JsonObject | JsonObject[], fields: readonly string[]): string {
  const inner = Array.isArray(body)
    ? body.map((object) => `<list-item>${xmlFields(object, fields)}</list-item>`).join("")
    : xmlFields(body, fields);
  return `${XML_DECLARATION}<root>${inner}</root>`;
}

// ---------------------------------------------------------------------------------------
// CSV (§3.4)

export function renderCsv(body: JsonObject | JsonObject[], fields: readonly string[]): string {
  const objects = Array.isArray(body) ? body : [body];
  return csvRow([...fields]) + objects.map((object) => csvRow(fields.map((name) => valueText(object[name])))).join("");
}

// ---------------------------------------------------------------------------------------
// HTML (§3.5)

export function renderHtml(title: string, body: JsonObject | JsonObject[], fields: readonly string[]): string {
  const cell = (value: unknown) => `<td>${escapeHtml(valueText(value))}</td>`;
  let table: string;
  if (Array.isArray(body)) {
    const head = `<tr>${fields.map((name) => `<th scope="col">${escapeHtml(name)}</th>`).join("")}</tr>`;
    const rows = body.map((object) => `<tr>${fields.map((name) => cell(object[name])).join("")}</tr>`).join("\n");
    table = `<table>\n<thead>${head}</thead>\n<tbody>\n${rows}\n</tbody>\n</table>`;
  } else {
    const rows = fields.map((name) => `<tr><th scope="row">${escapeHtml(name)}</th>${cell(body[name])}</tr>`).join("\n");
    table = `<table>\n<tbody>\n${rows}\n</tbody>\n</table>`;
  }
  const t = escapeHtml(title);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; white-space: pre-wrap; }
th { background: #f3f3f3; }
nav { margin-bottom: 1rem; }
</style>
</head>
<body>
<h1>${t}</h1>
<nav><a href="?format=json">JSON</a> · <a href="?format=csv">CSV</a> · <a href="?format=xml">XML</a></nav>
${table}
</body>
</html>
`;
}
