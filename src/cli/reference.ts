// docs/cli.md, made from the usage text the CLI itself prints: one section per
// command, its usage as `pipefill <command> --help` shows it. A test fails when
// the file and the code differ; `npm run docs:cli` writes it again.

import { COMMAND_USAGES } from './main.js';

export const CLI_REFERENCE_HEADER = `# The CLI

Generated from the usage text the CLI prints (\`pipefill <command> --help\`):
\`npm run docs:cli\` writes this file, and a test fails when it and the code
differ. From a clone, \`npm run --silent pipefill -- <args>\` runs the CLI and
prints nothing on stdout but the command's own output (so \`--json\` can be
piped); installed, the command is \`pipefill\`. Every command takes
\`--store postgres://USER@HOST[:PORT]/DB | FILE\` for the site history.
Exit codes: 0 done, 2 bad input (the message says what was expected), 3 a
target not met (\`capacity --target\`, \`report compare\` where no site passes:
the run itself went well, for scripted gates), 1 anything else (an
unreachable share, a refused login, a failed write).

Units: rates \`155.52mbit\`, \`1gbit\`, \`OC3\`, \`GbE\`, \`T1\`; times \`32ms\`,
\`0.075s\`; sizes \`100MB\` (10^8 bytes) and \`100MiB\` (100 x 2^20). Workloads:
\`file:<size>\` and \`tr3869-dirset[:scale]\` (300 files of 50 KB to 5 MB in 14
folders, 1 GiB in all, from a seeded generator).
`;

export function cliReference(): string {
  const sections = Object.entries(COMMAND_USAGES).map(([name, usage]) => `## ${name}\n\n\`\`\`text\n${usage}\n\`\`\`\n`);
  return `${CLI_REFERENCE_HEADER}\n${sections.join('\n')}`;
}
