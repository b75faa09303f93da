// CSV: one row per test copy, for spreadsheets and ticket systems. Pure.

import type { Report } from '../contract/report.js';

const HEADER = [
  'share', 'started_at', 'rtt_ms', 'bandwidth_mbps', 'bandwidth_method', 'profile', 'op', 'workload', 'bytes', 'seconds',
  'throughput_mbps', 'expected_seconds', 'verdict', 'limited_by', 'dialect', 'credits_granted_max', 'emulated',
];

export function csvField(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  // Quote what needs it; a leading = + - @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) || safe !== value ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function reportCsv(report: Report): string {
  const rows = report.copyTests.map((test, index) => {
    const finding = report.diagnosis.findings[index];
    return [
      report.target.share, report.startedAt, report.probes.rtt.medianMs, report.probes.bandwidth.mbps, report.probes.bandwidth.method,
      test.profile, test.op, test.workload, test.bytes, test.seconds, test.throughputMbps,
      finding?.expectedSeconds ?? '', finding?.verdict ?? '', finding?.limitedBy ?? '', test.negotiated.dialect, test.negotiated.creditsGrantedMax, test.emulation !== null,
    ];
  });
  return `${[HEADER, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}
