import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ReportSchema } from '../contract/report.js';
import type { Pair } from './verdict-changes.js';
import { fixFor } from './verdict-changes.js';

const report = ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-52mbit-75ms.json', import.meta.url), 'utf8')));
const finding = report.diagnosis.findings[0];
if (!finding) throw new Error('the fixture has findings');

describe('the fix line where no setting helps the costliest copy', () => {
  const pair = (limitedBy: Pair['yours']['limitedBy']): Pair => ({
    kind: 'small-files',
    op: 'write',
    yours: { ...finding, op: 'write', limitedBy },
    bytes: 1e9,
    pathSeconds: 40,
    costSeconds: 12,
  });

  it('names that copy: a change for another copy may still stand in the list', () => {
    expect(fixFor(pair('packet-loss'), undefined, false, undefined).sentence).toBe(
      'No setting Pipefill knows would speed up the small-files write: the cause lies outside what SMB, TCP and copy-tool settings change.',
    );
    expect(fixFor(pair('round-trips'), undefined, false, undefined).sentence).toMatch(
      /^No setting Pipefill knows would speed up the small-files write on this path \(/,
    );
  });
});
