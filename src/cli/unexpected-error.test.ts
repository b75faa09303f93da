import { describe, expect, it } from 'vitest';
import { unexpectedErrorText } from './unexpected-error.js';

const systemError = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('unexpectedErrorText', () => {
  it('is one line and a hint, never the stack, for a failure Pipefill did not foresee', () => {
    const text = unexpectedErrorText(new Error('smbpasswd failed: When run by root:\n    smbpasswd [options] [username]\notherwise: ...'));
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toMatch(/^error: smbpasswd failed: When run by root:\nhint: .*PIPEFILL_DEBUG=1/);
    expect(text).not.toMatch(/\bat \S+ \(/);
  });

  it("says what to do for the system's own errors", () => {
    expect(unexpectedErrorText(systemError("EACCES: permission denied, open '/var/lib/pipefill/x'", 'EACCES'))).toMatch(/hint: .*sudo/);
    expect(unexpectedErrorText(systemError('listen EADDRINUSE: address already in use 127.0.0.1:8080', 'EADDRINUSE'))).toMatch(/hint: .*--port/);
    expect(unexpectedErrorText(systemError('spawn iperf3 ENOENT', 'ENOENT'))).toMatch(/hint: .*apt-get install/);
  });

  it('shows the stack after the line only when asked (PIPEFILL_DEBUG=1)', () => {
    const error = new Error('boom');
    expect(unexpectedErrorText(error, true)).toContain(error.stack ?? 'no stack');
    expect(unexpectedErrorText('a thrown string')).toMatch(/^error: a thrown string\n/);
  });
});
