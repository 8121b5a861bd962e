/**
 * CSV as vendors send it (RFC 4180: quoted fields, "" inside quotes, CR LF or LF), with a
 * delimiter of choice. Blank lines are skipped; a leading byte-order mark is ignored.
 */

/** The rows of a CSV text, or a message saying where it is broken. */
export function parseCsvRows(text: string, delimiter = ","): { ok: true; rows: string[][] } | { ok: false; error: string } {
  const d = delimiter.charCodeAt(0);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = () => {
    row.push(field);
    if (!(row.length === 1 && row[0] === "")) rows.push(row);
    row = [];
    field = "";
  };
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === 34) {
        if (text.charCodeAt(i + 1) === 34) {
          field += '"';
          i++;
        } else {
          quoted = false;
          afterQuote = true;
        }
      } else {
        if (c === 10) line++;
        field += text[i];
      }
      continue;
    }
    if (c === d) {
      row.push(field);
      field = "";
      afterQuote = false;
    } else if (c === 10 || c === 13) {
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      endRow();
      afterQuote = false;
      line++;
    } else if (c === 34 && field === "" && !afterQuote) {
      quoted = true;
    } else if (afterQuote) {
      return { ok: false, error: `line ${line}: text after a closing quote` };
    } else {
      field += text[i];
    }
  }
  if (quoted) return { ok: false, error: `line ${line}: a quote is not closed` };
  if (field !== "" || row.length > 0) endRow();
  return { ok: true, rows };
}
