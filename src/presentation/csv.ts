// One CSV field, as every export writes it (the report's CSV, the planner's).
// Quotes what needs quoting, and defuses what a spreadsheet would run as a
// formula: a leading = + - @, and a leading TAB or CR, which some
// spreadsheets skip before looking for one (OWASP, "CSV Injection"). Pure.

export function csvField(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) || safe !== value ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvRows(rows: readonly (readonly (string | number | boolean)[])[], newline = '\r\n'): string {
  return `${rows.map((row) => row.map(csvField).join(',')).join(newline)}${newline}`;
}
