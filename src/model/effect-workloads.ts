// The copies every effect is told for: a 1 GB file, and TR-3869's 1 GiB
// folder of 300 office files. A person knows them; a test's own sample
// (15 MiB, a few files) is no size anyone copies. The advice weighs each
// change on them, the verdict and every view quote them, in these words.

import { parseWorkload } from './workloads.js';

export const EFFECT_WORKLOADS = ['file:1GB', 'tr3869-dirset'] as const;

const FOLDER_FILES = parseWorkload(EFFECT_WORKLOADS[1]).files.length;

/** "write file:1GB" -> "writing a 1 GB file"; "read tr3869-dirset" -> "reading the 1 GB folder of 300 small files"; undefined for any other test. */
export function effectText(test: string): string | undefined {
  const match = /^(read|write) (\S+)$/.exec(test.trim());
  if (!match) return undefined;
  const verb = match[1] === 'write' ? 'writing' : 'reading';
  if (match[2] === EFFECT_WORKLOADS[0]) return `${verb} a 1 GB file`;
  if (match[2] === EFFECT_WORKLOADS[1]) return `${verb} the 1 GB folder of ${FOLDER_FILES} small files`;
  return undefined;
}
