// A one-line progress display on a terminal's stderr; silent when stderr is
// not a terminal, so scripts and --json output stay clean.

import type { ProgressEvent } from '../contract/copy-test.js';
import { formatBytes, formatRate } from '../model/units.js';

const BAR_WIDTH = 20;
function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  return '#'.repeat(filled) + '-'.repeat(BAR_WIDTH - filled);
}

export function terminalProgress(label: string): { update: (event: ProgressEvent) => void; done: () => void } {
  if (!process.stderr.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  return {
    update: (event) => {
      const now = Date.now();
      if (now - last < 100 && event.bytes < event.totalBytes) return;
      last = now;
      const percent = event.totalBytes > 0 ? Math.floor((event.bytes / event.totalBytes) * 100) : 0;
      const overall = event.fraction === undefined ? '' : `[${bar(event.fraction)}] ${Math.floor(event.fraction * 100)}% `;
      const live = event.live ? `, ${formatRate(event.live.mbps * 1e6)}` : '';
      process.stderr.write(`\r\x1b[K${label}: ${overall}${event.step} ${percent}% (${formatBytes(event.bytes)} of ${formatBytes(event.totalBytes)}${live})`);
    },
    done: () => process.stderr.write('\r\x1b[K'),
  };
}

/**
 * An AbortSignal that fires on the first Ctrl-C or SIGTERM (what `timeout`,
 * systemd and fleet tools send): the run cancels and cleans up as for a
 * Ctrl-C, its scratch folder and local source removed. A second signal exits
 * at once.
 */
export function interruptSignal(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(name === 'SIGTERM' ? 143 : 130);
    process.stderr.write(
      `\nCancelling${name === 'SIGTERM' ? ' (SIGTERM)' : ''}: removing the scratch folder from the share (${name === 'SIGTERM' ? 'a second SIGTERM or ' : ''}Ctrl-C again to quit at once)...\n`,
    );
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
