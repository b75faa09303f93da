import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { asDrivenByPipefill, DEFAULT_ENGINE_STACK } from '../model/diagnosis.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { modelServerText } from '../presentation/capacity-text.js';
import type { CapacityContext } from './capacity-result.js';
import { assembleCapacity } from './capacity-result.js';
import type { MeasuredCapacity } from './run-capacity.js';

// The demo share's line: 100 Mb/s, 40 ms; one person reading 64 MiB at 60 Mb/s as measured there (2026-11-27).
const link = { bandwidthBitsPerSecond: 100e6, rttMs: 40 };
const context: CapacityContext = {
  share: '//10.77.0.2/share',
  profile: 'win11-24h2',
  server: 'samba',
  op: 'read',
  fileBytes: 64 * 2 ** 20,
  seconds: 10,
  warmupSeconds: 3,
  startedAt: '2026-11-27T12:00:00.000Z',
  kneeShare: 0.5,
  steps: [1],
  model: { link, method: 'iperf3', client: asDrivenByPipefill(CLIENT_PROFILES['win11-24h2'], DEFAULT_ENGINE_STACK), serverProfile: SERVER_PROFILES.samba },
};
const latency = { echoMs: [41, 42, 43], openCloseMs: [82, 84] };

function measured(creditsGranted: number | undefined): MeasuredCapacity {
  return {
    negotiated: { dialect: '3.1.1', signing: 'AES-128-GMAC', encryption: null, serverRequired: { signing: false, encryption: false } },
    idle: latency,
    steps: [
      {
        users: 1,
        measuredBy: 'tcp',
        seconds: 10,
        perUser: [{ user: 0, op: 'read', bytes: (60e6 / 8) * 10, credits: { creditsGrantedMax: creditsGranted ?? 512 } }],
        latency,
      },
    ],
    creditsGranted,
  };
}

describe("a capacity run's model takes the server as the run saw it", () => {
  it('with 16 credits granted, expects one person what one 1 MiB request at a time gives, and says so', () => {
    const seen = assembleCapacity(measured(16), context);
    const assumed = assembleCapacity(measured(undefined), context);
    // One 1 MiB read in flight per round trip and its own transfer: about 1 MiB per 40 + 84 ms, near 67 Mb/s.
    expect(seen.steps[0]?.expected?.perUserMbps).toBeLessThan(75);
    expect(seen.steps[0]?.expected?.perUserMbps).toBeGreaterThan(55);
    // The default Samba's model fills the line: the figure the Capacity view showed beside a measured 60.
    expect(assumed.steps[0]?.expected?.perUserMbps).toBeGreaterThan(85);
    expect(seen.negotiated.creditsGranted).toBe(16);
    expect(modelServerText(seen)).toBe(
      'The model takes the server as this run saw it: Samba (smb2 max credits 8192, Linux TCP auto-tuning), except that it granted each person 16 SMB2 credits at once (the profile allows 8192).',
    );
    expect(modelServerText(assumed)).toBe('The model takes the server as Samba (smb2 max credits 8192, Linux TCP auto-tuning).');
  });
});
