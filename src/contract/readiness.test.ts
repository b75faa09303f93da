// Will Windows 11 24H2 and Server 2025 open the share (issue 50): each fact a
// run sees, said for each generation with its fix, in the verdict's lines and
// the ticket summary.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ticketSummary } from '../presentation/summary.js';
import { readinessLine, readinessOf } from './readiness.js';
import type { Report } from './report.js';
import { ReportSchema } from './report.js';
import type { LoginUsedDto } from './share-login.js';
import { adviceOf, buildVerdict } from '../presentation/verdict.js';
import { VerdictSchema } from './verdict-schema.js';

const base = ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-100mbit-40ms-credits16.json', import.meta.url), 'utf8')));

/** The fixture as if every session had logged on so. */
function loggedOn(login: LoginUsedDto): Report {
  return {
    ...base,
    verdict: undefined,
    probes: { ...base.probes, session: base.probes.session ? { ...base.probes.session, login } : undefined },
    copyTests: base.copyTests.map((copy) => ({ ...copy, negotiated: { ...copy.negotiated, login } })),
  } as Report;
}

const BY_ADDRESS: LoginUsedDto = { mechanism: 'ntlmv2', whyNotKerberos: 'the server was reached by its address; Kerberos needs its name', account: 'pipefill' };

describe('readiness for the newest Windows', () => {
  it('a share that takes people as guests: 24H2 and Server 2025 refuse it (no signing), Windows 10 too (guest logons), with the server fix', () => {
    const readiness = readinessOf(loggedOn({ mechanism: 'ntlmv2', guest: true }), 'win10-smb3');
    expect(readiness.map((entry) => [entry.profile, entry.status])).toEqual([
      ['win11-24h2', 'refuses'],
      ['win10-smb3', 'refuses'],
    ]);
    expect(readiness[0]?.sentence).toBe(
      'Windows 11 24H2 and Windows Server 2025 will refuse this share: it logs people on as guests, and a guest session cannot sign, which they require.',
    );
    const line = readinessLine(readiness) ?? '';
    expect(line).toMatch(/Windows 10 and Windows 11 before 24H2 will refuse this share: it logs people on as guests/);
    // One fix, said once.
    expect(line.match(/map to guest = never/g)).toHaveLength(1);
  });

  it('an NTLM logon by address: 24H2 opens it only while NTLM is allowed, and the fix is the DNS name', () => {
    const [newest, older] = readinessOf(loggedOn(BY_ADDRESS), 'win11-24h2');
    expect(newest).toMatchObject({ profile: 'win11-24h2', status: 'at-risk', fix: 'Reach the share by its DNS name, so Kerberos is used.' });
    expect(newest?.sentence).toMatch(/only where NTLM is allowed, which Windows 11 24H2 can block and Windows Server 2025 domains restrict/);
    expect(older?.status).toBe('ready');
  });

  it('a server with no Kerberos: the fix is joining the domain', () => {
    const [newest] = readinessOf(loggedOn({ mechanism: 'ntlmv2', whyNotKerberos: 'the server offers no Kerberos' }), 'win11-24h2');
    expect(newest?.fix).toMatch(/join the server to the domain \(Samba: security = ads\)/i);
  });

  it('Kerberos and a signed session: ready, saying with what', () => {
    const [newest] = readinessOf(loggedOn({ mechanism: 'kerberos', principal: 'alice@PF.TEST' }), 'win11-24h2');
    expect(newest).toEqual({
      profile: 'win11-24h2',
      status: 'ready',
      sentence: 'Windows 11 24H2 and Windows Server 2025: ready: it signs (AES-128-GMAC) and logs on with Kerberos.',
    });
  });

  it('is in the verdict (its lines, its own field) and in the ticket summary', () => {
    const report = loggedOn(BY_ADDRESS);
    const verdict = VerdictSchema.parse(buildVerdict(report, adviceOf(report)));
    expect(verdict.readiness?.[0]?.status).toBe('at-risk');
    expect(verdict.lines.some((line) => line.startsWith('Windows 11 24H2 and Windows Server 2025 open it only where NTLM is allowed'))).toBe(true);
    expect(ticketSummary({ ...report, verdict })).toMatch(/^Readiness: Windows 11 24H2 and Windows Server 2025 open it only where NTLM is allowed.*DNS name/m);
  });

  it('says nothing where the run did not see how it logged on (reports from before)', () => {
    expect(readinessOf(base, 'win11-24h2')).toEqual([]);
    expect(buildVerdict(base, adviceOf(base)).readiness).toBeUndefined();
  });
});
