import { describe, expect, it } from 'vitest';
import { PipefillInputError } from '../model/errors.js';
import { parseSambaOption, sambaOptionNames } from './samba-option.js';

describe('a Samba option for the lab', () => {
  it('takes a performance setting as smb.conf writes it, below the range Pipefill would propose too', () => {
    expect(parseSambaOption('smb2 max credits = 16')).toEqual({ name: 'smb2 max credits', value: '16' });
    expect(parseSambaOption('  SMB2   Max Credits=64 ')).toEqual({ name: 'smb2 max credits', value: '64' });
    expect(parseSambaOption('server multi channel support = yes')).toEqual({ name: 'server multi channel support', value: 'yes' });
    expect(parseSambaOption('socket options = TCP_NODELAY SO_RCVBUF=65536')).toEqual({ name: 'socket options', value: 'TCP_NODELAY SO_RCVBUF=65536' });
  });

  it('refuses paths, commands, other settings and anything that could add a line', () => {
    for (const text of [
      'log file = /etc/passwd',
      'root preexec = rm -rf /',
      'smb2 max credits = 16\n[evil]',
      'smb2 max credits = sixteen',
      'smb2 max credits 16',
      'socket options = TCP_NODELAY; reboot',
      `smb2 max credits = ${'1'.repeat(400)}`,
    ]) {
      expect(() => parseSambaOption(text), text).toThrow(PipefillInputError);
    }
    expect(() => parseSambaOption('log file = /tmp/x')).toThrow(/"log file" is not a Samba setting the lab takes/);
  });

  it("lists what it takes: the catalogue's Samba settings", () => {
    expect(sambaOptionNames()).toEqual(expect.arrayContaining(['smb2 max credits', 'smb2 max read', 'smb2 max write', 'socket options']));
  });
});
