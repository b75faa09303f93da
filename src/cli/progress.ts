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
 * The longest a cancelled run may take to clean up before the process quits
 * anyway: a tool that sends one SIGTERM (`timeout`, systemd) must see it end
 * even on a path that stopped answering. Each clean-up request has its own
 * 5 s deadline; a run's removal takes a few of them.
 */
export const CANCEL_GRACE_MS = 30_000;

/**
 * An AbortSignal that fires on the first Ctrl-C or SIGTERM (what `timeout`,
 * systemd and fleet tools send): the run cancels and cleans up as for a
 * Ctrl-C, its scratch folder and local source removed. A second signal exits
 * at once, and so does a clean-up that outlasts CANCEL_GRACE_MS (the next
 * run sweeps what it left).
 */
export function interruptSignal(graceMs = CANCEL_GRACE_MS): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  let grace: ReturnType<typeof setTimeout> | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    const code = name === 'SIGTERM' ? 143 : 130;
    if (controller.signal.aborted) process.exit(code);
    process.stderr.write(
      `\nCancelling${name === 'SIGTERM' ? ' (SIGTERM)' : ''}: removing the scratch folder from the share (${name === 'SIGTERM' ? 'a second SIGTERM or ' : ''}Ctrl-C again to quit at once)...\n`,
    );
    grace = setTimeout(() => {
      process.stderr.write(`The clean-up did not finish within ${graceMs / 1000} s; quitting (the next run removes what it left on the share).\n`);
      process.exit(code);
    }, graceMs);
    // The timer alone keeps no finished process alive.
    grace.unref();
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      if (grace !== undefined) clearTimeout(grace);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
