// The person's client as its copies negotiated it, for the verdict's first
// line: "Windows 11 24H2, SMB 3.0.2, signed (AES-128-CMAC)". A profile's own
// label names what that generation asks for ("SMB 3.1.1 (signing
// required)"), which an SMB 2.0.2 server or a NAS that sealed the session
// never gave (issue 50). A generation Pipefill emulates over SMB 2 or 3 (the
// SMB1 ones) keeps its name; its rows say how it was emulated.

import type { ClientProfile } from '../model/client-profiles.js';
import type { CopyTestResult } from './copy-test.js';

type Seen = Pick<CopyTestResult['negotiated'], 'dialect' | 'signing' | 'encryption'>;

export function clientAsNegotiated(profile: Pick<ClientProfile, 'label' | 'protocol'>, negotiated: Seen | undefined): string {
  if (negotiated === undefined || profile.protocol === 'smb1') return profile.label;
  const name = profile.label.split(', SMB')[0] ?? profile.label;
  const protection = negotiated.encryption ? `sealed (${negotiated.encryption})` : negotiated.signing ? `signed (${negotiated.signing})` : 'unsigned';
  return `${name}, SMB ${negotiated.dialect}, ${protection}`;
}
