// The demo link's report (the WAN lab's 100 Mb/s, 40 ms branch, Samba
// granting 24 credits), with its advice and verdict made by this Pipefill:
// what the verdict, the ticket and the copies' status are tested on.

import { readFileSync } from 'node:fs';
import { ReportSchema } from '../contract/report.js';
import type { Report } from '../contract/report.js';
import { adviceOf, buildVerdict } from '../presentation/verdict.js';

export function demoReport(): Report {
  const json = JSON.parse(readFileSync(new URL('../report/fixtures/lab-100mbit-40ms-credits16.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  delete json['advice'];
  delete json['verdict'];
  const report = ReportSchema.parse(json);
  const advice = adviceOf(report);
  return { ...report, advice, verdict: buildVerdict(report, advice) };
}
