// Which server profile fits a share, from what the server said of itself in
// its NTLM CHALLENGE: the Version field (MS-NLMP 2.2.2.10, product major,
// minor and build). Windows writes its real release there; Samba writes a
// fixed 6.1 with build 0 (seen from Debian's Samba 4.17 in this project's
// tests: major 6, minor 1, build 0, NTLM revision 15). A server may write
// anything, so this only picks a profile for the expectations and says why;
// the person can always name another.

import type { ServerProfileId } from './server-profiles.js';

export interface NtlmVersion {
  readonly major: number;
  readonly minor: number;
  readonly build: number;
  readonly revision: number;
}

export interface ServerRecognition {
  /** The profile that fits, or undefined when nothing the server said is recognised. */
  readonly profile?: ServerProfileId;
  /** What the server said, as a person would check it. */
  readonly evidence: string;
}

/**
 * Windows builds that begin a server release (Microsoft's release
 * information): 2016 is 14393, 2019 17763, 2022 20348, 2025 26100. Server
 * 2016 and 2019 behave as 2012 does for copies (win2012plus).
 */
const WINDOWS_10_BUILDS: readonly (readonly [number, ServerProfileId])[] = [
  [26100, 'win2025'],
  [20348, 'win2022'],
  [0, 'win2012plus'],
];

const versionText = (version: NtlmVersion) => `version ${version.major}.${version.minor}, build ${version.build}`;

export function recogniseServer(version: NtlmVersion | undefined): ServerRecognition {
  if (!version) return { evidence: 'the server sent no NTLM challenge with a version in it' };
  const said = `its NTLM challenge (${versionText(version)})`;
  if (version.major === 6 && version.minor === 1 && version.build === 0) return { profile: 'samba', evidence: `${said}, as Samba writes it` };
  if (version.build === 0) return { evidence: `${said}, which no Windows release writes` };
  if (version.major === 10 && version.minor === 0) {
    const profile = WINDOWS_10_BUILDS.find(([first]) => version.build >= first)?.[1] ?? 'win2012plus';
    return { profile, evidence: `${said}, a Windows release` };
  }
  if (version.major === 6 && (version.minor === 2 || version.minor === 3))
    return { profile: 'win2012plus', evidence: `${said}: Windows Server 2012${version.minor === 3 ? ' R2' : ''}` };
  if (version.major === 6 && version.minor === 1) return { profile: 'win2008-qfe', evidence: `${said}: Windows Server 2008 R2` };
  if (version.major === 6 && version.minor === 0) return { profile: 'win2008-rtm', evidence: `${said}: Windows Server 2008` };
  return { evidence: `${said}, which Pipefill does not recognise` };
}
