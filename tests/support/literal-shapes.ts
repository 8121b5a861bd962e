/**
 * The messages a source writes, read from its literals (for the tests that check every message
 * stored in English has a translation): a template literal's `${…}` as the sample value "x7", a
 * `cond ? "…" : "…"` between literals as each branch.
 */

/** The template literal or string that starts at `at` (a backtick or a double quote), and where it ends. */
export function literalAt(code: string, at: number): { text: string; end: number } | null {
  const quote = code[at];
  if (quote === '"') {
    const m = /^"((?:[^"\\\n]|\\.)*)"/.exec(code.slice(at));
    return m ? { text: code.slice(at, at + m[0].length), end: at + m[0].length } : null;
  }
  if (quote !== "`") return null;
  let i = at + 1;
  while (i < code.length && code[i] !== "`") {
    if (code[i] === "\\") i += 2;
    else if (code.startsWith("${", i)) i = expressionEnd(code, i + 2) + 1;
    else i++;
  }
  return { text: code.slice(at, i + 1), end: i + 1 };
}

/** The index of the `}` that closes an expression starting at `at`. */
function expressionEnd(code: string, at: number): number {
  let depth = 0;
  for (let i = at; i < code.length; i++) {
    const c = code[i];
    if (c === "`" || c === '"') i = literalAt(code, i)!.end - 1;
    else if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return code.length;
}

/** What a literal may write: `${…}` as "x7", a ternary between literals as each branch. */
export function shapes(literal: string): string[] {
  if (literal.startsWith('"')) return [JSON.parse(literal) as string];
  const body = literal.slice(1, -1);
  let results = [""];
  let i = 0;
  while (i < body.length) {
    if (body.startsWith("${", i)) {
      const end = expressionEnd(body, i + 2);
      const expr = body.slice(i + 2, end).trim();
      const ternary = /^[^?`]*?\?\s*(?=[`"])/.exec(expr);
      let options = ["x7"];
      if (ternary) {
        const first = literalAt(expr, ternary[0].length);
        const colon = first && /^\s*:\s*/.exec(expr.slice(first.end));
        const second = first && colon ? literalAt(expr, first.end + colon[0].length) : null;
        if (first && second) options = [...shapes(first.text), ...shapes(second.text)];
      }
      results = results.flatMap((r) => options.map((o) => r + o));
      i = end + 1;
    } else {
      results = results.map((r) => r + body[i]);
      i++;
    }
  }
  return results;
}
