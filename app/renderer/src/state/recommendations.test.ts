import { describe, expect, it } from 'vitest';
import { recommendFromInput } from '../../../../src/contract/recommend.js';
import { grouped, scriptFor, scriptName } from './recommendations.js';

describe('recommendations state', () => {
  const result = recommendFromInput({
    bandwidth: '155mbit',
    rtt: '75ms',
    client: 'win10-smb3',
    server: 'samba',
    current: { 'samba.smb2-max-credits': 16, 'samba.socket-options': 'TCP_NODELAY SO_RCVBUF=65536' },
  });

  // 16 credits alone: the server's credits, and robocopy's lanes overlapping the small files' round trips.
  const creditsOnly = recommendFromInput({
    bandwidth: '155mbit',
    rtt: '75ms',
    client: 'win10-smb3',
    server: 'samba',
    current: { 'samba.smb2-max-credits': 16 },
  });

  it('groups by where a setting lives', () => {
    const groups = grouped(creditsOnly);
    expect(groups.map((g) => g.group)).toEqual(['server', 'copy tool']);
    expect(groups[0]?.items.every((r) => r.platform === 'samba')).toBe(true);
    // Behind a 64 KiB server window as well, lanes gain nothing: they share the one connection's window and credits.
    expect(grouped(result).map((g) => g.group)).toEqual(['server']);
  });

  it('writes each group as a script with the reason above every command', () => {
    const server = grouped(result)[0]?.items ?? [];
    const script = scriptFor(result, server);
    expect(script).toContain('#   socket options = TCP_NODELAY');
    expect(script).toMatch(/# socket options TCP_NODELAY SO_RCVBUF=65536 -> TCP_NODELAY: /);
    expect(scriptName(server)).toBe('pipefill-recommendations.sh');
    expect(scriptName(grouped(creditsOnly)[1]?.items ?? [])).toBe('pipefill-recommendations.ps1');
  });
});
