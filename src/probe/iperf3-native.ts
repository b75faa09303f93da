// The native iperf3 client: Pipefill's N-API addon over libiperf
// (native/iperf3). It runs the test on a worker thread and can be cancelled;
// where it cannot load (not built, libiperf missing, another OS) callers get
// the reason and fall back to the iperf3 executable.

import { addonPath, loadAddon } from '../platform/native-addon.js';

export interface NativeClientOptions {
  readonly host: string;
  readonly port: number;
  readonly seconds: number;
  /** Seconds at the start left out of the result (TCP's ramp). */
  readonly omitSeconds: number;
  readonly reverse: boolean;
  readonly streams: number;
  readonly connectTimeoutMs: number;
  /** Seconds per entry of the JSON's `intervals` (iperf3 -i); libiperf's 1 s when absent. */
  readonly intervalSeconds?: number;
}

export interface NativeClientResult {
  /** libiperf's JSON result (also on failure: it then holds `error`). */
  readonly json?: string;
  /** libiperf's message when it produced no JSON. */
  readonly error?: string;
  readonly cancelled: boolean;
}

interface AddonHandle {
  readonly promise: Promise<NativeClientResult>;
  cancel(): void;
}

interface Addon {
  runClient(options: NativeClientOptions): AddonHandle;
}

export type NativeIperf =
  | { readonly available: true; run(options: NativeClientOptions, signal?: AbortSignal): Promise<NativeClientResult> }
  | { readonly available: false; readonly reason: string };

/** Where node-gyp puts the addon, whichever build is running. */
export const ADDON_PATH = addonPath('iperf3', 'pipefill_iperf3');

// libiperf keeps its last error in a global (i_errno): one test at a time.
let queue: Promise<unknown> = Promise.resolve();

function serialised<T>(task: () => Promise<T>): Promise<T> {
  const next = queue.then(task, task);
  queue = next.catch(() => undefined);
  return next;
}

function run(addon: Addon, options: NativeClientOptions, signal?: AbortSignal): Promise<NativeClientResult> {
  return serialised(async () => {
    if (signal?.aborted) return { cancelled: true };
    const handle = addon.runClient(options);
    const onAbort = () => handle.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await handle.promise;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  });
}

let loaded: NativeIperf | undefined;

/** Loads the addon once; `path` is for tests. */
export function loadNativeIperf(path: string = ADDON_PATH): NativeIperf {
  if (path === ADDON_PATH && loaded) return loaded;
  const load = loadAddon<Addon>(path, 'the libiperf binding', "when Debian's libiperf-dev is installed");
  const result: NativeIperf = load.available ? { available: true, run: (options, signal) => run(load.addon, options, signal) } : load;
  if (path === ADDON_PATH) loaded = result;
  return result;
}
