// One CSV field, as every export writes it (the report's CSV, the planner's).
// Quotes what needs quoting, and defuses what a spreadsheet would run as a
// formula: a leading = + - @, and a leading TAB or CR, which some
// spreadsheets skip before looking for one (OWASP, "CSV Injection"). A
// measured fraction keeps six significant digits: 32.838365000000024 ms was
// a float's tail, not a measurement (whole numbers, such as bytes, stay
// exact). Pure.

/** Significant digits a CSV keeps of a number that is not whole. */
export const CSV_SIGNIFICANT_DIGITS = 6;

export function csvField(value: string | number | boolean): string {
  if (typeof value === 'number')
    return Number.isInteger(value) || !Number.isFinite(value) ? String(value) : String(Number(value.toPrecision(CSV_SIGNIFICANT_DIGITS)));
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) || safe !== value ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvRows(rows: readonly (readonly (string | number | boolean)[])[], newline = '\r\n'): string {
  return `${rows.map((row) => row.map(csvField).join(',')).join(newline)}${newline}`;
}
