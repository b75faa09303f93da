// Where command output goes. Commands write results to `out` only, so
// `--json` output can be piped; notes and progress go to `err`.

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

export function printJson(output: Output, value: unknown): void {
  output.out(JSON.stringify(value, null, 2));
}
