/**
 * A small non-validating XML reader for vendors' answers (addUPI): elements, attributes, text,
 * CDATA, comments, processing instructions and the predefined and numeric character
 * references. Like defusedxml (the reference's), it refuses entity declarations, so an answer
 * cannot expand itself ("billion laughs") or read files. The encoding is the one the XML
 * declaration names (the addUPI gateway may not send it in HTTP headers).
 */

export class XmlError extends Error {}

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The element's own text (its text pieces joined, children's text excluded). */
  text: string;
}

const MAX_DEPTH = 256;

/** Decodes bytes in the encoding of their BOM or XML declaration (UTF-8 by default). */
export function decodeXml(bytes: Uint8Array): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(declared ?? "utf-8");
  } catch {
    throw new XmlError(`unknown encoding "${declared}"`);
  }
  return decoder.decode(bytes);
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function unescape(text: string, at: () => string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(";")) throw new XmlError(`a bare "&" ${at()}`);
    if (ref in NAMED) return NAMED[ref];
    const code = /^#x([0-9a-f]+)$/i.test(ref) ? parseInt(ref.slice(2), 16) : /^#(\d+)$/.test(ref) ? Number(ref.slice(1)) : NaN;
    if (!Number.isFinite(code) || code > 0x10ffff || code === 0) throw new XmlError(`an unknown entity "&${ref};" ${at()}`);
    return String.fromCodePoint(code);
  });
}

// Sticky: matched at lastIndex, without copying the rest of the text.
const NAME = /[A-Za-z_:][\w.:-]*/y;
const ATTRIBUTE = /\s+([A-Za-z_:][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const TAG_END = /\s*(\/?)>/y;

function matchAt(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/** The root element of an XML text. */
export function parseXml(text: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const line = (p: number) => `on line ${text.slice(0, p).split("\n").length}`;
  while (i < text.length) {
    const lt = text.indexOf("<", i);
    const chunk = text.slice(i, lt < 0 ? text.length : lt);
    if (chunk.trim() !== "") {
      if (stack.length === 0) throw new XmlError(`text outside the root element ${line(i)}`);
      stack[stack.length - 1].text += unescape(chunk, () => line(i));
    }
    if (lt < 0) break;
    i = lt;
    if (text.startsWith("<!--", i)) {
      const end = text.indexOf("-->", i + 4);
      if (end < 0) throw new XmlError(`a comment is not closed ${line(i)}`);
      i = end + 3;
    } else if (text.startsWith("<![CDATA[", i)) {
      const end = text.indexOf("]]>", i + 9);
      if (end < 0 || stack.length === 0) throw new XmlError(`misplaced CDATA ${line(i)}`);
      stack[stack.length - 1].text += text.slice(i + 9, end);
      i = end + 3;
    } else if (text.startsWith("<?", i)) {
      const end = text.indexOf("?>", i + 2);
      if (end < 0) throw new XmlError(`a processing instruction is not closed ${line(i)}`);
      i = end + 2;
    } else if (text.startsWith("<!DOCTYPE", i) || text.startsWith("<!doctype", i)) {
      const end = text.indexOf(">", i);
      if (end < 0) throw new XmlError(`a DOCTYPE is not closed ${line(i)}`);
      if (text.slice(i, end).includes("[")) throw new XmlError("entity declarations are refused");
      i = end + 1;
    } else if (text.startsWith("</", i)) {
      const m = matchAt(NAME, text, i + 2);
      const end = text.indexOf(">", i);
      const open = stack.pop();
      if (!m || end < 0 || open === undefined || open.name !== m[0] || text.slice(i + 2 + m[0].length, end).trim() !== "") {
        throw new XmlError(`an unexpected closing tag ${line(i)}`);
      }
      i = end + 1;
    } else {
      const m = matchAt(NAME, text, i + 1);
      if (!m) throw new XmlError(`a "<" that starts no tag ${line(i)}`);
      if (stack.length === 0 && root !== null) throw new XmlError(`a second root element ${line(i)}`);
      let p = i + 1 + m[0].length;
      const attributes: Record<string, string> = {};
      for (;;) {
        const a = matchAt(ATTRIBUTE, text, p);
        if (!a) break;
        attributes[a[1]] = unescape(a[2] ?? a[3], () => line(p));
        p += a[0].length;
      }
      const rest = matchAt(TAG_END, text, p);
      if (!rest) throw new XmlError(`a malformed tag <${m[0]}> ${line(i)}`);
      const element: XmlElement = { name: m[0], attributes, children: [], text: "" };
      if (stack.length > 0) stack[stack.length - 1].children.push(element);
      else root = element;
      if (rest[1] !== "/") {
        if (stack.length >= MAX_DEPTH) throw new XmlError("elements nested too deep");
        stack.push(element);
      }
      i = p + rest[0].length;
    }
  }
  if (stack.length > 0) throw new XmlError(`the element <${stack[stack.length - 1].name}> is not closed`);
  if (root === null) throw new XmlError("there is no element");
  return root;
}

/** The children of an element with a name. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** Every element below (not including) `element`, in document order, that satisfies `test`. */
export function descendants(element: XmlElement, test: (e: XmlElement) => boolean): XmlElement[] {
  const out: XmlElement[] = [];
  const stack = [...element.children].reverse();
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (test(e)) out.push(e);
    for (let k = e.children.length - 1; k >= 0; k--) stack.push(e.children[k]);
  }
  return out;
}
