import { describe, expect, it } from 'vitest';
import { captureInput, captureName } from './use-capture.js';

describe("the Capture view's form", () => {
  it('sends the path trimmed, and a line rate only where one was typed', () => {
    expect(captureInput(' /tmp/slow.pcapng ', '')).toEqual({ path: '/tmp/slow.pcapng' });
    expect(captureInput('/tmp/slow.pcapng', ' 100mbit ')).toEqual({ path: '/tmp/slow.pcapng', bandwidth: '100mbit' });
  });

  it('shows a capture by its file name, from a POSIX or a Windows path', () => {
    expect(captureName('/home/ann/captures/slow.pcap')).toBe('slow.pcap');
    expect(captureName('C:\\Users\\ann\\slow copy.pcapng')).toBe('slow copy.pcapng');
    expect(captureName('slow.pcap')).toBe('slow.pcap');
  });
});
