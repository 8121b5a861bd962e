/**
 * CSV as vendors send it (RFC 4180: quoted fields, "" inside quotes, CR LF, LF or CR), with a
 * delimiter of choice. Blank lines are skipped; a leading byte-order mark is ignored. A line
 * without quotes is split at once (the common case: a year of readings in well under 100 ms);
 * a record with quotes is read character by character.
 */

export type CsvParse = { ok: true; rows: string[][] } | { ok: false; error: string };

/** The rows of a CSV text, or a message saying where it is broken. */
export function parseCsvRows(text: string, delimiter = ","): CsvParse {
  const rows: string[][] = [];
  const n = text.length;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (pos < n) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = n;
    let stop = end;
    if (stop > pos && text.charCodeAt(stop - 1) === 13) stop--;
    const plain = text.slice(pos, stop);
    if (!plain.includes('"') && !plain.includes("\r")) {
      if (plain !== "") rows.push(plain.split(delimiter));
      pos = end + 1;
      line++;
      continue;
    }
    const record = quotedRecord(text, pos, delimiter.charCodeAt(0), line);
    if (typeof record === "string") return { ok: false, error: record };
    if (!(record.row.length === 1 && record.row[0] === "")) rows.push(record.row);
    pos = record.next;
    line = record.line;
  }
  return { ok: true, rows };
}

/** One record from `pos` (it may span lines inside quotes), or a message. */
function quotedRecord(text: string, pos: number, d: number, line: number): { row: string[]; next: number; line: number } | string {
  const row: string[] = [];
  let field = "";
  let quoted = false;
  let afterQuote = false;
  let quoteLine = line;
  let i = pos;
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
      row.push(field);
      return { row, next: i + 1, line: line + 1 };
    } else if (c === 34 && field === "" && !afterQuote) {
      quoted = true;
      quoteLine = line;
    } else if (afterQuote) {
      return `line ${line}: text after a closing quote`;
    } else {
      field += text[i];
    }
  }
  if (quoted) return `line ${quoteLine}: a quote is not closed`;
  row.push(field);
  return { row, next: i, line };
}
