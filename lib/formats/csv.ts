/** RFC 4180 CSV: a field is quoted only when it holds a comma, a quote, CR or LF; rows end in CRLF. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: (string | number | boolean | null | undefined)[]): string {
  return values.map(csvField).join(",") + "\r\n";
}
