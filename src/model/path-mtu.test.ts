import { describe, expect, it } from 'vitest';
import { blackHoleFinding, MIN_SEARCHED_MTU_BYTES, MTU_PRECISION_BYTES, probeDataBytes, searchPathMtu } from './path-mtu.js';

const LINUX = { headerBytes: 52, mssBytes: 1448 };

describe('a probe of one packet', () => {
  it("sizes a WRITE's and a READ reply's data so that the frame, with its headers, is the packet tried (MS-SMB2 2.2.21, 2.2.20)", () => {
    // 1500 = 52 (IP, TCP, timestamps) + 4 (Direct TCP) + 64 (SMB2 header) + 48 (WRITE body) + 1332.
    expect(probeDataBytes(1500, 'write', LINUX, false)).toBe(1332);
    // 1500 = 52 + 4 + 64 + 16 (READ response body) + 1364.
    expect(probeDataBytes(1500, 'read', LINUX, false)).toBe(1364);
    // Sealed, each message carries the 52-byte TRANSFORM_HEADER (2.2.41) too.
    expect(probeDataBytes(1500, 'write', LINUX, true)).toBe(1280);
    // Windows' segments carry no timestamps: 40 bytes of headers, 1460 of payload.
    expect(probeDataBytes(1500, 'write', { headerBytes: 40, mssBytes: 1460 }, false)).toBe(1344);
  });

  it('has none where the frame would leave as two segments, or has no data', () => {
    expect(probeDataBytes(1501, 'write', LINUX, false)).toBeUndefined();
    expect(probeDataBytes(52 + 116, 'write', LINUX, false)).toBeUndefined();
    expect(probeDataBytes(1400.5, 'read', LINUX, false)).toBeUndefined();
  });
});

describe('the search for the largest packet that crosses', () => {
  const pathOf = (mtu: number) => {
    const asked: number[] = [];
    return { asked, crosses: (size: number) => (asked.push(size), Promise.resolve(size <= mtu)) };
  };

  it.each([1280, 1281, 1380, 1400, 1412, 1420, 1472, 1492, 1499])('finds %i within 8 bytes, never above it, in at most 7 probes', async (mtu) => {
    const path = pathOf(mtu);
    const search = await searchPathMtu(path.crosses);
    expect(search.crossesBytes).toBeLessThanOrEqual(mtu);
    expect(search.crossesBytes).toBeGreaterThan(mtu - MTU_PRECISION_BYTES);
    expect(search.vanishesBytes).toBeGreaterThan(mtu);
    expect(path.asked.length).toBeLessThanOrEqual(7);
    expect(new Set(path.asked).size).toBe(path.asked.length);
    expect(search.probes.map((probe) => probe.packetBytes)).toEqual(path.asked);
  });

  it('asks once where the full size crosses: nothing to find', async () => {
    const path = pathOf(1500);
    await expect(searchPathMtu(path.crosses)).resolves.toEqual({
      crossesBytes: 1500,
      vanishesBytes: undefined,
      probes: [{ packetBytes: 1500, crossed: true }],
    });
  });

  it('says so where not even the smallest size crosses', async () => {
    const search = await searchPathMtu(pathOf(1000).crosses);
    expect(search).toMatchObject({ crossesBytes: undefined, vanishesBytes: MIN_SEARCHED_MTU_BYTES });
    expect(search.probes).toHaveLength(2);
  });

  it('refuses a range that is not one', async () => {
    await expect(searchPathMtu(pathOf(1400).crosses, 1500, 1280)).rejects.toThrow(RangeError);
  });
});

describe('the black hole in words', () => {
  it('names the MTU found, the fix on each platform and the MSS clamp, and what it buys', () => {
    const finding = blackHoleFinding(1400, 1500, 52);
    expect(finding.message).toMatch(/^Path MTU black hole: packets larger than 1400 bytes vanish between this machine and the server \(sent at 1500/);
    expect(finding.hint).toContain('MTU = 1400');
    expect(finding.hint).toContain('ip link set dev <tunnel> mtu 1400');
    expect(finding.hint).toContain('mtu=1400 store=persistent');
    expect(finding.hint).toContain('ifconfig <utun> mtu 1400');
    expect(finding.hint).toContain('--clamp-mss-to-pmtu');
    expect(finding.hint).toContain('1348 bytes a packet instead of 1448 (6.9% less');
  });
});
