// Ctrl-C and SIGTERM for a command that runs until told to stop (`pipefill
// ui`): the first one starts an orderly stop; the listeners stay until that
// stop is over. They must: under `npm start` every Ctrl-C arrives twice, once
// from the terminal (to the whole process group) and once forwarded by npm
// (@npmcli/run-script's signal manager passes SIGINT and SIGTERM on to the
// script). A second signal with no listener left ends Node at once, with no
// 'exit' event, while the demo share is being stopped (smbd, in a process
// group of its own, would outlive the app), or with 130 just after (and npm
// calls the run failed). So once a stop has begun the listeners stay for the
// rest of the process, which is on its way out; a stop that does not end
// within its grace quits through process.exit, whose 'exit' listeners kill
// what is left.

/** How long an orderly stop may take before the process quits anyway: smbd's own stop is TERM, 3 s, then KILL. */
export const STOP_GRACE_MS = 15_000;

export interface StopSignals {
  /** Resolves at the first SIGINT or SIGTERM. */
  readonly stopped: Promise<void>;
  /** The command is over. With no signal yet, signals get Node's own handling again; after one, nothing changes (the process is ending). */
  dispose(): void;
}

export function stopSignals(onFirst: () => void = () => undefined, graceMs = STOP_GRACE_MS): StopSignals {
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let grace: ReturnType<typeof setTimeout> | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    // A repeat (npm's forward of the same Ctrl-C, or the person pressing it again) changes nothing: the stop is bounded.
    if (grace !== undefined) return;
    grace = setTimeout(() => process.exit(name === 'SIGTERM' ? 143 : 130), graceMs);
    // The timer alone keeps no finished process alive.
    grace.unref();
    onFirst();
    resolveStopped();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopped,
    dispose: () => {
      if (grace !== undefined) return;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
