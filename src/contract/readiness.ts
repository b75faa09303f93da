// Whether the newest Windows clients will open this share (issue 50): the
// most common ticket of 2024-2026 is "after 24H2 the NAS stopped working".
// Windows 11 24H2 signs every connection and, like Windows 10 (1709 on),
// refuses insecure guest logons; 24H2 can block NTLM, and Windows Server 2025
// domains restrict it. The run has seen each fact (how the session logged on,
// whether it was a guest one, what it signed with); this says what they mean
// for each generation, with the server's or the network's fix. Pure: a
// report in, sentences out, so every view says the same.

import type { ClientProfileId } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Report } from './report.js';
import type { LoginUsedDto } from './share-login.js';
import type { VerdictReadiness } from './verdict-schema.js';

/** The generations a readiness review asks about, newest first, and what each is called there. */
const GENERATIONS: readonly { readonly profile: ClientProfileId; readonly label: string }[] = [
  { profile: 'win11-24h2', label: 'Windows 11 24H2 and Windows Server 2025' },
  { profile: 'win10-smb3', label: 'Windows 10 and Windows 11 before 24H2' },
];

const NTLM_BLOCKABLE = 'which Windows 11 24H2 can block and Windows Server 2025 domains restrict';

/**
 * Where an NTLM logon leaves the share for a client that blocks NTLM: the
 * reason this run did not use Kerberos, and what makes the share open with
 * it (src/smb/login-choice.ts says the reasons).
 */
export function ntlmRisk(login: LoginUsedDto): { readonly why: string; readonly fix: string; readonly kerberosUntried?: true } | undefined {
  if (login.mechanism !== 'ntlmv2' || login.guest) return undefined;
  const why = login.whyNotKerberos ?? '';
  if (/reached by its address/.test(why))
    return { why: 'this run logged on with NTLMv2 because the server was reached by its address', fix: 'reach the share by its DNS name, so Kerberos is used' };
  if (/offers no Kerberos/.test(why))
    return { why: 'the server offers no Kerberos', fix: 'join the server to the domain (Samba: security = ads), so it takes Kerberos' };
  // Kerberos not tried (NTLM asked for, none on this machine) or tried and failed: the share may well take it.
  if (/asked for/.test(why))
    return {
      why: 'this run logged on with NTLMv2, as asked',
      fix: 'run again without --ntlm to check that the share opens with Kerberos',
      kerberosUntried: true,
    };
  return {
    why: `this run logged on with NTLMv2${why ? ` (${why})` : ''}`,
    fix: 'check that the share opens with Kerberos: by its DNS name, with a ticket for its realm',
    kerberosUntried: true,
  };
}

/** How the run logged on: the person's client's copy's session where it ran, else the probe's. */
function loginOf(report: Report, client: ClientProfileId): LoginUsedDto | undefined {
  return report.copyTests.find((copy) => copy.profile === client)?.negotiated.login ?? report.probes.session?.login;
}

/** What the run saw the generation's own copies sign with (24H2 signs everything), or any copy's where it ran none. */
function signedWith(report: Report, profile: ClientProfileId): string | undefined {
  const copies = report.copyTests.filter((copy) => copy.profile === profile);
  return (
    (copies.length > 0 ? copies : report.copyTests).map((copy) => copy.negotiated.signing).find((algorithm) => algorithm !== null && algorithm !== undefined) ??
    undefined
  );
}

/** Each generation's readiness for this share, newest first. */
export function readinessOf(report: Report, client: ClientProfileId): VerdictReadiness[] {
  const login = loginOf(report, client);
  if (!login) return [];
  return GENERATIONS.map(({ profile, label }) => {
    const offer = CLIENT_PROFILES[profile].offer;
    if (login.guest && offer.signingRequired)
      return {
        profile,
        status: 'refuses' as const,
        sentence: `${label} will refuse this share: it logs people on as guests, and a guest session cannot sign, which they require.`,
        fix: 'Give people accounts on the server and stop mapping logons to guest (Samba: map to guest = never).',
      };
    if (login.guest && offer.refusesGuest)
      return {
        profile,
        status: 'refuses' as const,
        sentence: `${label} will refuse this share: it logs people on as guests, which they refuse by default.`,
        fix: 'Give people accounts on the server and stop mapping logons to guest (Samba: map to guest = never).',
      };
    const risk = offer.signingRequired ? ntlmRisk(login) : undefined;
    if (risk)
      return {
        profile,
        status: 'at-risk' as const,
        sentence: `${label} open it only where NTLM is allowed, ${NTLM_BLOCKABLE}: ${risk.why}.`,
        fix: `${risk.fix.charAt(0).toUpperCase()}${risk.fix.slice(1)}.`,
      };
    const signing = signedWith(report, profile);
    const how = [
      offer.signingRequired && signing ? `it signs (${signing})` : undefined,
      login.mechanism === 'kerberos' ? 'logs on with Kerberos' : undefined,
    ].filter((part): part is string => part !== undefined);
    return { profile, status: 'ready' as const, sentence: `${label}: ready${how.length > 0 ? `: ${how.join(' and ')}` : ''}.` };
  });
}

/** The verdict's readiness line: the newest generation's, and any older one the share refuses too. */
export function readinessLine(readiness: readonly VerdictReadiness[]): string | undefined {
  const [newest, ...older] = readiness;
  if (!newest) return undefined;
  const refusedToo = older.filter((entry) => entry.status === 'refuses');
  const fixes = [...new Set([newest, ...refusedToo].flatMap((entry) => (entry.fix ? [entry.fix] : [])))];
  return [newest.sentence, ...refusedToo.map((entry) => entry.sentence), ...fixes.map((fix) => `Fix: ${fix}`)].join(' ');
}
