// CSV: one row per test copy, for spreadsheets and ticket systems. Pure.

import { csvRows } from '../presentation/csv.js';
import type { Finding, Report } from '../contract/report.js';
import { copyRateOf } from '../contract/copy-rate.js';

const rateColumns = (report: Report, finding: Finding): [number, boolean] => {
  const rate = copyRateOf(report.copyTests, finding);
  return [Math.round(rate.bitsPerSecond) / 1e6, rate.underWay];
};

const HEADER = [
  'share',
  'started_at',
  'rtt_ms',
  'bandwidth_mbps',
  'bandwidth_method',
  'profile',
  'op',
  'workload',
  'bytes',
  'seconds',
  'throughput_mbps',
  'expected_seconds',
  'verdict',
  'limited_by',
  'dialect',
  'credits_granted_max',
  'emulated',
  'signing',
  'encryption',
  'projected',
  'measured_bytes',
  'measured_seconds',
  // The rate every view quotes for the copy (src/contract/copy-rate.ts): a file's once under way, else the whole copy's.
  'rate_mbps',
  'rate_once_under_way',
];

export function reportCsv(report: Report): string {
  const rows = report.copyTests.map((test, index) => {
    const finding = report.diagnosis.findings[index];
    return [
      report.target.share,
      report.startedAt,
      report.probes.rtt.medianMs,
      report.probes.bandwidth.mbps,
      report.probes.bandwidth.method,
      test.profile,
      test.op,
      test.workload,
      test.bytes,
      test.seconds,
      test.throughputMbps,
      finding?.expectedSeconds ?? '',
      finding?.verdict ?? '',
      finding?.limitedBy ?? '',
      test.negotiated.dialect,
      test.negotiated.creditsGrantedMax,
      test.emulation !== null,
      test.negotiated.signing ?? '',
      test.negotiated.encryption ?? '',
      test.projected !== undefined,
      test.projected?.measuredBytes ?? test.bytes,
      test.projected?.measuredSeconds ?? test.seconds,
      ...(finding ? rateColumns(report, finding) : ['', '']),
    ];
  });
  return csvRows([HEADER, ...rows]);
}
