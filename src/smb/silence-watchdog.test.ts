import { describe, expect, it } from 'vitest';
import { SilenceWatchdog } from './silence-watchdog.js';

describe('SilenceWatchdog', () => {
  it('calls a server overdue after the base of silence, and not after it answers', () => {
    let clock = 0;
    const watchdog = new SilenceWatchdog(9_000, () => clock);
    watchdog.progress();
    clock = 8_999;
    expect(watchdog.overdue()).toBeUndefined();
    clock = 9_000;
    expect(watchdog.overdue()).toEqual({ silentMs: 9_000, trickledBytes: 0 });
    watchdog.progress();
    expect(watchdog.overdue()).toBeUndefined();
  });

  it('allows more silence for the request bytes sent since the server spoke, and says what trickled in', () => {
    let clock = 0;
    const watchdog = new SilenceWatchdog(9_000, () => clock);
    watchdog.sent(1_250_000); // 10 s at the slowest link rate (1 Mb/s)
    watchdog.received(100);
    clock = 18_000;
    expect(watchdog.overdue()).toBeUndefined();
    clock = 19_000;
    expect(watchdog.overdue()).toEqual({ silentMs: 19_000, trickledBytes: 100 });
  });

  it('takes back the progress of a frame that answered nothing', () => {
    let clock = 0;
    const watchdog = new SilenceWatchdog(9_000, () => clock);
    clock = 8_000;
    watchdog.partialProgress();
    clock = 10_000;
    expect(watchdog.overdue()).toBeUndefined();
    watchdog.takeBack();
    expect(watchdog.overdue()?.silentMs).toBe(10_000);
  });
});
