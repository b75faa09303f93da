// Progress on stderr: on a terminal one line redrawn in place (the whole
// run's bar, the step, its bytes and rate); elsewhere (a log, a CI job, a
// pipe) one line per step, so a redirected run still says where it is.
// stdout stays the result's alone, so --json output can be piped.

import type { ProgressEvent } from '../contract/copy-test.js';
import { printable } from '../model/terminal-text.js';
import { formatBytes, formatRate } from '../model/units.js';

const BAR_WIDTH = 20;
function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  return '#'.repeat(filled) + '-'.repeat(BAR_WIDTH - filled);
}

const percent = (fraction: number) => `${Math.floor(Math.min(1, Math.max(0, fraction)) * 100)}%`;

/** The step's own bytes and rate, where it has any: "(96 MB of 256 MB, 1.2 Gb/s)". */
function stepDetail(event: ProgressEvent): string {
  const live = event.live ? formatRate(event.live.mbps * 1e6) : undefined;
  const bytes =
    event.totalBytes > 0
      ? `${percent(event.bytes / event.totalBytes)} (${formatBytes(event.bytes)} of ${formatBytes(event.totalBytes)}${live ? `, ${live}` : ''})`
      : undefined;
  return bytes ?? (live ? `(${live})` : '');
}

export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export function terminalProgress(label: string, stream: ProgressStream = process.stderr): { update: (event: ProgressEvent) => void; done: () => void } {
  if (!stream.isTTY) {
    let lastStep: string | undefined;
    return {
      update: (event) => {
        if (event.step === lastStep) return;
        lastStep = event.step;
        const overall = event.fraction === undefined ? '' : `${percent(event.fraction)} `;
        stream.write(printable(`${label}: ${overall}${event.step}\n`));
      },
      done: () => undefined,
    };
  }
  let last = 0;
  let shown = false;
  return {
    update: (event) => {
      const now = Date.now();
      if (now - last < 100 && event.bytes < event.totalBytes && event.step !== 'done') return;
      last = now;
      shown = true;
      const overall = event.fraction === undefined ? '' : `[${bar(event.fraction)}] ${percent(event.fraction)} `;
      const detail = stepDetail(event);
      // Only the redraw's own escape is let through: the text itself is made printable.
      stream.write(`\r\x1b[K${printable(`${label}: ${overall}${event.step}${detail ? ` ${detail}` : ''}`)}`);
    },
    done: () => {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
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
