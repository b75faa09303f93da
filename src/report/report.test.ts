// The exports and the readiness review, on two real lab assessments.

import { readFileSync } from 'node:fs';
import { MIB } from '../model/client-profiles.js';
import { describe, expect, it } from 'vitest';
import { compareSites, parseTarget } from '../presentation/compare.js';
import { observationsFromReport, recommendFromInput } from '../contract/recommend.js';
import type { Report } from '../contract/report.js';
import { checkReportSize, MAX_REPORT_BYTES, parseReportText, ReportSchema } from '../contract/report.js';
import { PipefillInputError } from '../model/errors.js';
import { csvField } from '../presentation/csv.js';
import { pathEvents, pipeFor } from '../presentation/report-views.js';
import { reportCsv } from './csv.js';
import { reportHtml } from './html.js';
import { escapeXml } from './svg.js';
import { adviceOf, verdictOf } from '../presentation/verdict.js';
import { CAPACITY_FIXTURE } from '../test-support/capacity-fixture.js';
import { formatComparison } from '../cli/commands/report.js';

const fixture = (name: string): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')));
const slow = fixture('lab-52mbit-75ms.json');
const fast = fixture('lab-155mbit-32ms.json');

describe('CSV export', () => {
  it('has one row per test copy under a header, and no password', () => {
    const lines = reportCsv(slow).trimEnd().split('\r\n');
    expect(lines).toHaveLength(slow.copyTests.length + 1);
    expect(lines[0]).toMatch(/^share,started_at,rtt_ms,bandwidth_mbps/);
    expect(lines[1]).toMatch(/^\/\/10\.77\.0\.2\/share,2026-11-22T/);
    expect(reportCsv(slow)).not.toMatch(/password/i);
  });

  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField(3.5)).toBe('3.5');
    // A float's tail is no measurement: six significant digits, whole numbers exact.
    expect(csvField(32.838365000000024)).toBe('32.8384');
    expect(csvField(18396.471753749236)).toBe('18396.5');
    expect(csvField(268435456)).toBe('268435456');
    expect(reportCsv(slow)).not.toMatch(/\d\.\d{7,}/);
    // Spreadsheets that skip a leading TAB or CR before looking for a formula.
    expect(csvField('\t=1+1')).toBe(`"'\t=1+1"`);
    expect(csvField('\r=1+1')).toBe(`"'\r=1+1"`);
    expect(csvField('-2')).toBe(`"'-2"`);
  });
});

describe('HTML export', () => {
  const html = reportHtml(slow);

  it('is one self-contained file: no script, nothing fetched, charts inline', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)=["']?https?:/i);
    const charts = [...html.matchAll(/<svg [^>]*data-bars="(\d+)"/g)].map((m) => Number(m[1]));
    expect(charts).toHaveLength(2);
    for (const bars of charts) expect(bars).toBeGreaterThan(0);
    expect(html).toMatch(/@media print/);
  });

  it('opens on the verdict and what to change, before any measurement', () => {
    const verdict = verdictOf(slow);
    const box = html.indexOf('<section class="verdict">');
    expect(box).toBeGreaterThan(0);
    expect(box).toBeLessThan(html.indexOf('<h2>What to change</h2>'));
    // Then the diagnosis in words, the measurements, and last how they were made.
    expect(html.indexOf('<h2>What to change</h2>')).toBeLessThan(html.indexOf('<h2>Diagnosis</h2>'));
    expect(html.indexOf('<h2>Diagnosis</h2>')).toBeLessThan(html.indexOf('<h2>Measured and expected</h2>'));
    expect(html.indexOf('<h2>Measured and expected</h2>')).toBeLessThan(html.indexOf('<h2>How it was measured</h2>'));
    // A4 unless Letter is asked for.
    expect(html).toContain('@page{size:A4;');
    expect(reportHtml(slow, { paper: 'letter' })).toContain('@page{size:letter;');
    for (const line of verdict.lines) expect(html).toContain(escapeXml(line));
    // Every recommendation for the assessed client and server is there with its command.
    for (const recommendation of adviceOf(slow).recommendations) expect(html).toContain(escapeXml(recommendation.command));
  });

  it('carries the diagnosis and the probes, and no password', () => {
    expect(html).toContain('75.86 ms median');
    expect(html).toContain(slow.diagnosis.findings[0]?.sentence.slice(0, 40).replace(/&/g, '&amp;'));
    expect(html).not.toMatch(/password"/i);
  });

  it('exports a report whose workload this Pipefill does not know, without its pipe', () => {
    const future = { ...slow, diagnosis: { ...slow.diagnosis, findings: slow.diagnosis.findings.map((f) => ({ ...f, workload: 'tr9999-future-set' })) } };
    const exported = reportHtml(future);
    expect(exported).toContain('tr9999-future-set');
    expect(reportCsv(future)).toContain('\r\n');
  });

  it('refuses a report file far larger than any report, before parsing it', () => {
    expect(() => parseReportText(' '.repeat(MAX_REPORT_BYTES + 1), 'huge.json')).toThrow(/at most 16 MiB/);
    expect(() => checkReportSize(MAX_REPORT_BYTES + 1, 'huge.json')).toThrow(PipefillInputError);
  });

  it('escapes what it shows', () => {
    const hostile = reportHtml({ ...slow, target: { ...slow.target, share: '//x/<img src=x onerror=alert(1)>' } });
    expect(hostile).not.toContain('<img src=x');
    expect(hostile).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('recommendations from a report', () => {
  it('takes the credit ceiling from the copy that asked for the most, not from one that asked for few', () => {
    const seen = observationsFromReport(fast);
    const granted = fast.copyTests.map((test) => test.negotiated.creditsGrantedMax);
    expect(seen.creditsGranted).toBe(Math.max(...granted));
    expect(Math.min(...granted)).toBeLessThan(seen.creditsGranted ?? 0);
    // A default Samba: nothing to say about its credits.
    const result = recommendFromInput({ report: fast, client: 'win10-smb3', server: 'samba' });
    expect(result.recommendations.map((r) => r.id)).not.toContain('samba.smb2-max-credits');
  });
});

describe('branch readiness', () => {
  it('reads targets, and says how to write one that does not parse', () => {
    expect(parseTarget('dirset<5min@win10-smb3')).toEqual({
      text: 'dirset<5min@win10-smb3',
      workload: 'tr3869-dirset',
      ops: ['read', 'write'],
      seconds: 300,
      client: 'win10-smb3',
    });
    expect(parseTarget('file/write < 30s @ win7-smb2')).toMatchObject({ workload: 'file:100MB', ops: ['write'], seconds: 30 });
    expect(() => parseTarget('dirset under 5 minutes')).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/Cannot read the target/), hint: expect.stringMatching(/dirset<5min@win10-smb3/) }),
    );
    expect(() => parseTarget('dirset<5min@win95')).toThrow(/Unknown client/);
  });

  it('ranks sites slowest first, passes the fast one, and finds the change that makes the slow one pass', () => {
    const result = compareSites([fast, slow], parseTarget('dirset<5min@win10-smb3'));
    expect(result.sites.map((site) => site.rttMs > 50)).toEqual([true, false]);
    const [failing, passing] = result.sites;
    expect(passing?.passes).toBe(true);
    expect(failing?.passes).toBe(false);
    expect(failing?.fix).toMatch(/robocopy \/MT:n 1 -> \d+ \(copy-tool\) makes it/);
  });

  it('says when no setting is enough', () => {
    const result = compareSites([slow], parseTarget('file/read<2s@win10-smb3'));
    expect(result.sites[0]?.fix).toMatch(/No setting is enough/);
  });

  it("carries the latest capacity run of each site's share, whatever its slashes and case, and names runs with no site", () => {
    const target = { users: 30, perUserMbps: 5, addedLatencyMs: 50 };
    const older = {
      ...CAPACITY_FIXTURE,
      share: '\\\\10.77.0.2\\SHARE',
      startedAt: '2026-11-20T09:00:00.000Z',
      readiness: { target, met: true, basis: 'measured' as const, text: 'older run: met.' },
    };
    const latest = { ...CAPACITY_FIXTURE, share: '//10.77.0.2/share', startedAt: '2026-11-23T09:00:00.000Z' };
    const untargeted = { ...CAPACITY_FIXTURE, share: '//elsewhere/data', readiness: null };
    const result = compareSites([slow], parseTarget('dirset<5min@win10-smb3'), [older, latest, untargeted]);
    expect(result.sites[0]?.capacity).toEqual({ startedAt: latest.startedAt, met: false, text: latest.readiness?.text });
    expect(result.capacityWithoutAssessment).toEqual(['//elsewhere/data']);
    const text = formatComparison(result);
    expect(text).toMatch(/people at once/);
    expect(text).toMatch(/FAILS\s+NOT MET/);
    expect(text).toContain(`//10.77.0.2/share (2026-11-23 09:00): ${latest.readiness?.text}`);
    expect(text).toContain('Capacity runs with no assessment of the same share given: //elsewhere/data.');
    // A run without a target still says what it found; without any run the table keeps its five columns.
    expect(compareSites([slow], parseTarget('dirset<5min@win10-smb3'), [{ ...untargeted, share: slow.target.share }]).sites[0]?.capacity).toMatchObject({
      met: null,
      text: expect.stringMatching(/^No target set; at most 146 Mb\/s together, with 2 people/),
    });
    expect(formatComparison(compareSites([slow], parseTarget('dirset<5min@win10-smb3')))).not.toMatch(/people at once/);
  });
});

describe('what the path did during a copy', () => {
  const point = (tMs: number, bytes: number) => ({ tMs, bytes, ops: bytes > 0 ? 1 : 0 });
  it('names stalls, a changed round trip and loss each way, and nothing on a healthy path', () => {
    const healthy = {
      timeline: [0, 100, 200, 300].map((t) => point(t, 1000)),
      tcp: { rttStartMs: 32.1, rttEndMs: 33.4, retransmittedFraction: 0, outOfOrderPackets: 0 },
    };
    expect(pathEvents(healthy)).toEqual([]);
    const stalled = [point(0, 1000), ...Array.from({ length: 52 }, (_, i) => point(100 + i * 100, 0)), point(5300, 1000)];
    const events = pathEvents({ timeline: stalled, tcp: { rttStartMs: 32, rttEndMs: 301, retransmittedFraction: 0.012, outOfOrderPackets: 40 } });
    expect(events[0]).toBe('The copy stalled for 5.2 s at 0.1 s: no data moved.');
    expect(events[1]).toMatch(/32 ms before, 301 ms after/);
    expect(events[2]).toMatch(/1\.2% of its bytes again/);
    expect(events[3]).toMatch(/40 packets arrived out of order/);
    // A write that watched the round trip at each loss says whose they were.
    const split = { retransmittedFraction: 0.208, lossAtQueueFraction: 0.192, lossOnPathFraction: 0.016, peakQueueMs: 5.5 };
    expect(pathEvents({ timeline: [point(0, 1000)], tcp: split })).toEqual([
      "TCP sent 20.8% of its bytes again: 19.2% as it overflowed the line's queue itself (the round trip then up to 5.5 ms above its least); 1.6% for losses on the path, with no queue behind them.",
    ]);
    expect(
      pathEvents({ timeline: [point(0, 1000)], tcp: { ...split, retransmittedFraction: 0.009, lossAtQueueFraction: 0, lossOnPathFraction: 0.009 } }),
    ).toEqual(['TCP sent 0.9% of its bytes again: 0.9% for losses on the path, with no queue behind them.']);
    expect(pathEvents({ timeline: [point(0, 1000)], tcp: { retransmittedFraction: 0.05, lossAtQueueFraction: 0.05, peakQueueMs: 12 } })).toEqual([
      'TCP sent 5.0% of its bytes again, with a queue standing whenever it sent (the round trip then up to 12.0 ms above its least): whether the path lost any too cannot be read from this copy.',
    ]);
    // Watched, but too few losses to say whose.
    expect(
      pathEvents({ timeline: [point(0, 1000)], tcp: { retransmittedFraction: 0.007, peakQueueMs: 16.4, lossUnsplitFraction: 0.007, queueAtLossMs: 16.4 } }),
    ).toEqual([
      "TCP sent 0.7% of its bytes again: packets were lost on the way to the server, too few to tell whether the path lost them or the copy overflowed the line's queue itself.",
    ]);
    // Quiet before the first byte (opening, the ramp) is no stall.
    expect(pathEvents({ timeline: [point(0, 0), ...Array.from({ length: 20 }, (_, i) => point(100 + i * 100, 0)), point(2200, 5)] })).toEqual([]);
  });
});

describe('signing and encryption in a report', () => {
  const signed: Report = {
    ...fast,
    crypto: { rates: { 'AES-128-CMAC': { protect: 7.5e8, check: 7.5e8 }, 'AES-128-GMAC': { protect: 7e9, check: 7e9 } }, serverOnThisMachine: false },
    protectionCheck: { ran: false, sentence: 'Not run: every session signs (AES-128-CMAC) because the server requires it.' },
    copyTests: fast.copyTests.map((test) => ({
      ...test,
      negotiated: { ...test.negotiated, dialect: '3.1.1', signing: 'AES-128-CMAC' as const, signingRequiredBy: 'server' as const },
    })),
  };

  it('shows what every copy carried, the rates measured here and the signing check', () => {
    const html = reportHtml(signed);
    expect(html).toContain('<h2>Signing and encryption</h2>');
    expect(html).toContain('Copies were signed with AES-128-CMAC.');
    expect(html).toMatch(/AES-128-CMAC<\/td><td class="n">750 MB\/s/);
    expect(html).toContain('Not run: every session signs');
    expect(reportHtml(fast)).not.toContain('<h2>Signing and encryption</h2>');
  });

  it('draws the signing layer in the pipe for a signed copy', () => {
    const finding = signed.diagnosis.findings.find((f) => f.profile === 'pipefill-max') ?? signed.diagnosis.findings[0];
    expect(finding).toBeDefined();
    if (!finding) return;
    expect(pipeFor(signed, finding)?.bars.map((bar) => bar.layer)).toContain('SMB signing');
    expect(pipeFor(fast, finding)?.bars.map((bar) => bar.layer)).not.toContain('SMB signing');
  });
});

describe('the pipe of a copy the server held to 16 credits', () => {
  it("draws the credits the copy was allowed, not the server profile's ceiling", () => {
    const report = fixture('lab-100mbit-40ms-credits16.json');
    const finding = report.diagnosis.findings.find((f) => f.profile === 'win11-24h2' && f.op === 'read' && f.workload.startsWith('file:'));
    expect(finding).toBeDefined();
    if (!finding) return;
    const credits = pipeFor(report, finding)?.bars.find((bar) => bar.layer === 'SMB credits');
    // 16 credits of 64 KiB: 1 MiB (Samba's profile grants 8192, 512 MiB).
    expect(credits?.bytesInFlight).toBe(MIB);
    expect(credits?.limiting).toBe(true);
  });
});

describe('projected copies in the report', () => {
  it('marks a projected time, says what was measured, and keeps reports from before budgets valid', () => {
    expect(ReportSchema.parse(slow).options.budgetSeconds).toBeUndefined();
    const [first, ...rest] = slow.copyTests;
    const [finding, ...others] = slow.diagnosis.findings;
    if (!first || !finding) throw new Error('fixture has no copies');
    const projected = {
      ...slow,
      options: { ...slow.options, budgetSeconds: 60, settleRule: 'A budgeted copy stops once its rate has settled.' },
      copyTests: [
        {
          ...first,
          projected: {
            stoppedBy: 'settled' as const,
            measuredBytes: 3_000_000,
            measuredSeconds: 1.25,
            filesTouched: 1,
            rateMbps: 41.2,
            rateFrom: 'this-copy' as const,
            rateRelativeHalfWidth: 0.03,
            lowSeconds: 5.9,
            highSeconds: 6.6,
          },
        },
        ...rest,
      ],
      diagnosis: { ...slow.diagnosis, findings: [{ ...finding, projected: true }, ...others] },
    };
    const html = reportHtml(ReportSchema.parse(projected));
    expect(html).toContain("* Projected: the copy stopped within the run's 60 s budget");
    expect(html).toContain('projected from 3.00 MB in 1.25 s, 1 file (rate settled at 41.2 Mb/s ± 3%); 5.90-6.60 s at the rate&#39;s spread');
    const csv = reportCsv(projected).split('\r\n');
    expect(csv[0]).toContain('projected,measured_bytes,measured_seconds,rate_mbps,rate_once_under_way');
    expect(csv[1]).toMatch(/,true,3000000,1\.25,[\d.]+,(true|false)$/);
    expect(csv[2]).toMatch(/,false,\d+,[\d.]+,[\d.]+,(true|false)$/);
  });
});
