import ts from "typescript";

/**
 * A scan of the site's source for words a page shows that do not come from the message catalogues
 * (public.md §3: "every page has no untranslated text"). It walks each file's syntax tree with
 * the TypeScript compiler and reports:
 * - JSX text with letters (`<h1>Stations</h1>`), and string literals that a JSX child expression
 *   yields as text (`{open ? "Close" : "Open"}`);
 * - string literals in JSX attributes a user sees or hears: every attribute but the technical
 *   ones (TECHNICAL_ATTRIBUTES: class names, ids, addresses, types, …), so that a new label prop
 *   (`caption="…"`) is caught without being named here;
 * - string literals given to a visible property of an object (`{ label: "Daily" }`, metadata's
 *   `title`), which pages render later;
 * - in the .ts files that write HTML for pages (chrome, refusals, …): the text between tags and
 *   the visible attributes of the HTML in string and template literals, and sentences given as
 *   strings (a page's title).
 * What is not language passes (isLanguageFree): punctuation, symbols, numbers, and the words of
 * NOT_LANGUAGE (names of formats, standards and brands, which Greek pages write the same way).
 */

export interface Finding {
  file: string;
  line: number;
  text: string;
}

/**
 * Words that are the same on an English and a Greek page, each with why.
 * - Names of file formats, standards and protocols, written so in Greek too: CSV, HTS, API, UTC,
 *   JSON, GeoJSON, HTML, URL, WKT, SRID, EPSG, WGS84.
 * - Brand and product names: Enhydris, OpenStreetMap, Leaflet.
 * - SI unit symbols (m, km, mm, s, h, min, hPa).
 * Not here: "E-mail" (Greek pages write "Email"/"Ηλεκτρονικό ταχυδρομείο" in their own way, and the
 * label is a word of the form, not a name), units written out in English ("minutes", "values").
 */
export const NOT_LANGUAGE = new Set([
  "CSV", "HTS", "API", "UTC", "JSON", "GeoJSON", "HTML", "URL", "WKT", "SRID", "EPSG", "WGS84", "WGS",
  "Enhydris", "OpenStreetMap", "Leaflet",
  // SI unit symbols, which Greek pages write in Latin letters too: "120 m", "(s)".
  "m", "km", "mm", "s", "h", "min", "hPa",
]);

/** JSX attributes whose values a user neither sees nor hears. */
const TECHNICAL_ATTRIBUTES = new Set([
  "className", "id", "key", "href", "src", "action", "method", "type", "name", "value", "defaultValue", "role", "htmlFor",
  "autoComplete", "autoCapitalize", "autoCorrect", "spellCheck", "inputMode", "accept", "pattern", "rel", "target", "loading",
  "scope", "lang", "dir", "form", "formAction", "encType", "crossOrigin", "referrerPolicy", "sizes", "media", "as", "path",
  "fill", "stroke", "viewBox", "d", "points", "xmlns", "textAnchor", "dominantBaseline", "strokeLinecap", "strokeLinejoin",
  "dataKey", "yAxisId", "xAxisId", "scale", "shape", "orientation", "idPrefix", "kind", "layout", "interval", "tickFormatter",
  "step", "min", "max", "color", "mode", "variant", "size", "style", "wrap", "hrefLang", "download", "transform", "domain", "pointerEvents",
]);
/** Of the aria-* and data-* attributes, only these are read out or shown (data-label: the phone layout's cell captions). */
const VISIBLE_ARIA_DATA = new Set(["aria-label", "aria-description", "aria-roledescription", "aria-valuetext", "aria-placeholder", "data-label"]);
/** Object properties whose string a page renders. */
const VISIBLE_PROPERTIES = new Set([
  "title", "label", "placeholder", "help", "hint", "heading", "caption", "lead", "submit", "empty", "note", "description",
  "message", "legend", "summary", "confirm", "ariaLabel", "alt",
]);
/** Elements whose content is code or not text: what `<code>` holds is typed literally (search syntax, file names). */
const NOT_TEXT_ELEMENTS = new Set(["code", "kbd", "samp", "script", "style", "svg", "path", "title-svg"]);

/** True when a text has no word of a language: only punctuation, symbols, numbers and NOT_LANGUAGE. */
export function isLanguageFree(text: string): boolean {
  const words = text.match(/[\p{L}][\p{L}\p{N}]*/gu) ?? [];
  return words.every((word) => NOT_LANGUAGE.has(word));
}

/** The string literals an expression yields as a value (not those it passes to calls, e.g. t("key")). */
function yieldedStrings(node: ts.Expression): ts.Node[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node];
  if (ts.isTemplateExpression(node)) return [node, ...node.templateSpans.flatMap((span) => yieldedStrings(span.expression))];
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node) || ts.isSatisfiesExpression(node)) return yieldedStrings(node.expression);
  if (ts.isConditionalExpression(node)) return [...yieldedStrings(node.whenTrue), ...yieldedStrings(node.whenFalse)];
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    if (op === ts.SyntaxKind.AmpersandAmpersandToken) return yieldedStrings(node.right);
    if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.PlusToken) {
      return [...yieldedStrings(node.left), ...yieldedStrings(node.right)];
    }
  }
  if (ts.isArrayLiteralExpression(node)) return node.elements.flatMap((e) => (ts.isExpression(e) ? yieldedStrings(e) : []));
  return [];
}

/** The literal text of a string or template literal (a substitution counts as a symbol). */
function literalText(node: ts.Node): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("\u2022");
  return "";
}

function tagName(node: ts.JsxOpeningLikeElement): string {
  return node.tagName.getText();
}

/** True when a JSX node sits inside an element whose content is not text (code, script, svg). */
function insideNonText(node: ts.Node): boolean {
  for (let p: ts.Node | undefined = node.parent; p; p = p.parent) {
    if (ts.isJsxElement(p) && NOT_TEXT_ELEMENTS.has(tagName(p.openingElement))) return true;
  }
  return false;
}

function isVisibleAttribute(name: string): boolean {
  if (name.startsWith("aria-") || name.startsWith("data-")) return VISIBLE_ARIA_DATA.has(name);
  return !TECHNICAL_ATTRIBUTES.has(name) && !/^on[A-Z]/.test(name);
}

/**
 * HTML in a string: the text between tags and the values of title, placeholder, aria-label and
 * alt (a small reader for the literal HTML the .ts files write; the literals themselves are found
 * by the compiler).
 */
function htmlTexts(html: string): string[] {
  if (!/<[a-z][a-z0-9]*[\s>/]|<\/[a-z]/i.test(html)) return [];
  const texts: string[] = [];
  const body = html.replace(/<(script|style|svg)\b[\s\S]*?<\/\1>/gi, " ");
  for (const m of body.matchAll(/\b(?:title|placeholder|aria-label|alt)="([^"]*)"/gi)) texts.push(m[1]);
  // A literal may hold a part of a tag: its start ("<html id=…") or its end (`" lang="en">`).
  const text = body.replace(/<[^>]*>/g, "\n").replace(/<[^>]*$/, "").replace(/^[^<>]*>/, "");
  for (const part of text.split("\n")) if (part.trim()) texts.push(part);
  return texts;
}

/**
 * A sentence in a string ("Password set", `At most ${limit}.`): a capitalised word, then more
 * words after spaces, and nothing of code, paths or headers (/ = ; _ { } < >). One word alone
 * ("Forbidden") is not told from a name here.
 */
function isSentence(text: string): boolean {
  return /^\p{Lu}\p{Ll}+\S*\s+\S/u.test(text) && !/[/=;_{}<>]/.test(text);
}

/** Everything a file (its name, for the kind of syntax, and its text) shows that does not come from a catalogue. */
export function untranslatedIn(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const report = (node: ts.Node, text: string) => {
    const clean = text.replace(/\s+/g, " ").trim();
    // An address of the site or elsewhere ("/accounts/login/?next=…") is not text.
    if (/^(?:\/|#|https?:\/\/)\S*$/.test(clean)) return;
    if (!isLanguageFree(clean)) findings.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: clean });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isTypeNode(node)) return;
    if (ts.isJsxText(node) && !insideNonText(node)) report(node, node.text);
    else if (ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent)) && !insideNonText(node)) {
      for (const s of yieldedStrings(node.expression)) report(s, literalText(s));
    } else if (ts.isJsxAttribute(node) && node.initializer && isVisibleAttribute(node.name.getText())) {
      const init = node.initializer;
      const strings = ts.isStringLiteral(init) ? [init] : ts.isJsxExpression(init) && init.expression ? yieldedStrings(init.expression) : [];
      for (const s of strings) report(s, literalText(s));
    } else if (ts.isPropertyAssignment(node) && VISIBLE_PROPERTIES.has(node.name.getText().replace(/["']/g, ""))) {
      for (const s of yieldedStrings(node.initializer)) report(s, literalText(s));
    } else if (!file.endsWith(".tsx") && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))) {
      const text = literalText(node);
      const inHtml = htmlTexts(text);
      if (inHtml.length > 0) for (const t of inHtml) report(node, t);
      else if (isSentence(text)) report(node, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}
