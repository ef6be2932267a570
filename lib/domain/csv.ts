// CSV as spreadsheets read it (RFC 4180): one pure encoder for every export, so quoting and the
// formula-injection guard are written once. Unit-tested in tests/unit/domain/csv.test.ts.

// A cell a spreadsheet would evaluate: =SUM(..), +cmd, -2+3, @SUM(..), or one hidden behind a
// tab or carriage return. OWASP's advice: prefix a single quote so it is shown as text.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One field: text is guarded against formulas, then quoted when it holds `,` `"` or a line break. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 says. */
export function csvRow(values: readonly (string | number | boolean | null | undefined)[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
