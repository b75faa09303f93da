// Types for lab-selection.mjs (plain JavaScript: the lab's runner loads it unbuilt).

/** The files changed since `ref` (committed or not, and new files not yet added). */
export function changedFiles(root: string, ref: string): string[];
/** The lab test files among `tests` that `changed` touches, each with the changed file it depends on first. */
export function labTestsTouchedBy(root: string, changed: readonly string[], tests: readonly string[]): { test: string; because: string }[];
