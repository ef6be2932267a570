// CSV as spreadsheets read it (RFC 4180), safe to open: a cell that a spreadsheet would run as a
// formula (starting with = + - @, a tab or a carriage return) is prefixed with a quote (OWASP's
// advice on CSV injection), and a cell with a comma, a quote or a line break is quoted.

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return String(value);
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV line, ended with CRLF as RFC 4180 says. */
export function csvRow(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
