import { ApiError } from "@/lib/http/errors";
import { MSG } from "@/lib/http/fields";

/**
 * Content negotiation of the model-named endpoints (legacy.md §3.1): `?format=` first, then
 * `Accept` with q values and specificity, ties in the server's order.
 */
export type Representation = "json" | "xml" | "csv" | "html";

export interface Chosen {
  readonly representation: Representation;
  readonly contentType: string;
}

/** The supported media types in the server's order (ties go to the earlier). */
const SUPPORTED: readonly { type: string; chosen: Chosen }[] = [
  { type: "application/json", chosen: { representation: "json", contentType: "application/json" } },
  { type: "text/html", chosen: { representation: "html", contentType: "text/html; charset=utf-8" } },
  { type: "application/xml", chosen: { representation: "xml", contentType: "application/xml; charset=utf-8" } },
  { type: "text/xml", chosen: { representation: "xml", contentType: "text/xml; charset=utf-8" } },
  { type: "text/csv", chosen: { representation: "csv", contentType: "text/csv; charset=utf-8" } },
];

const JSON_CHOSEN = SUPPORTED[0].chosen;
const BY_FORMAT: Record<string, Chosen> = {
  json: JSON_CHOSEN,
  xml: SUPPORTED[2].chosen,
  csv: SUPPORTED[4].chosen,
  html: SUPPORTED[1].chosen,
  api: SUPPORTED[1].chosen,
};

export const NOT_ACCEPTABLE = "Could not satisfy the request Accept header.";

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A q value; lenient about digits (`0.80000`), clamped to 1. */
const QVALUE = /^(\d+(\.\d*)?|\.\d+)$/;

/** The media ranges of an Accept header; unparsable ones are left out. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(",")) {
    const [mediaType, ...parameters] = part.split(";").map((s) => s.trim());
    const slash = mediaType.indexOf("/");
    if (slash <= 0) continue;
    const type = mediaType.slice(0, slash).toLowerCase();
    const subtype = mediaType.slice(slash + 1).toLowerCase();
    if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === "*" && subtype !== "*")) continue;
    let q = 1;
    let valid = true;
    for (const parameter of parameters) {
      const eq = parameter.indexOf("=");
      if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== "q") continue;
      const value = parameter.slice(eq + 1).trim();
      if (QVALUE.test(value)) q = Math.min(Number(value), 1);
      else valid = false;
    }
    if (valid) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q of a media type: that of the most specific matching range (exact, type/*, then *\/*); undefined if none matches. */
function qualityOf(type: string, ranges: MediaRange[]): number | undefined {
  const [t, s] = type.split("/");
  let best: { specificity: number; q: number } | undefined;
  for (const r of ranges) {
    const specificity = r.type === t && r.subtype === s ? 3 : r.type === t && r.subtype === "*" ? 2 : r.type === "*" && r.subtype === "*" ? 1 : 0;
    if (specificity === 0) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && r.q > best.q)) best = { specificity, q: r.q };
  }
  return best?.q;
}

/** The representation an Accept header asks for, or null when nothing acceptable is offered. */
export function negotiateAccept(header: string | null): Chosen | null {
  if (header === null || header.trim() === "") return JSON_CHOSEN;
  const ranges = parseAccept(header);
  if (ranges.length === 0) return JSON_CHOSEN;
  let chosen: Chosen | null = null;
  let bestQ = 0;
  for (const { type, chosen: candidate } of SUPPORTED) {
    const q = qualityOf(type, ranges) ?? 0;
    if (q > bestQ) {
      bestQ = q;
      chosen = candidate;
    }
  }
  return chosen;
}

/**
 * The representation of a request: `?format=` (400 for an unknown value), else `Accept` (406
 * when nothing acceptable is offered). An empty `format` counts as absent.
 */
export function negotiate(url: URL, accept: string | null): Chosen {
  const format = url.searchParams.get("format");
  if (format !== null && format !== "") {
    const chosen = BY_FORMAT[format];
    if (!Object.prototype.hasOwnProperty.call(BY_FORMAT, format)) {
      throw new ApiError(400, { format: [MSG.choice(format)] }, { Vary: "Accept" });
    }
    return chosen;
  }
  const chosen = negotiateAccept(accept);
  if (!chosen) throw new ApiError(406, { detail: NOT_ACCEPTABLE }, { Vary: "Accept" });
  return chosen;
}
