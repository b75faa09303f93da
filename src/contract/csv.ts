// One CSV field, as every export writes it (the report's CSV, the planner's).
// Quotes what needs quoting, and defuses a leading = + - @ that a spreadsheet
// would run as a formula. Pure.

export function csvField(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) || safe !== value ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvRows(rows: readonly (readonly (string | number | boolean)[])[], newline = '\r\n'): string {
  return `${rows.map((row) => row.map(csvField).join(',')).join(newline)}${newline}`;
}
