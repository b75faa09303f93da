// The one contract over Electron's IPC, in the main process. Kept apart from
// main.ts so it can be tested without Electron: the IPC object and the
// sender check are passed in.
//
// The renderer sends `pipefill:call` (call id, method, input) and
// `pipefill:cancel` (call id); the main process answers on `pipefill:frame`
// with the same frames the web mode streams: progress, then result or error.
// Every message is checked: a trusted sender frame, a method of the
// contract, a call id of the right shape; inputs are validated against the
// contract's schema by the API itself.

import type { PipefillApi } from '../../src/contract/api.js';
import type { ProgressEvent } from '../../src/contract/copy-test.js';
import type { WireFrame } from '../../src/contract/transport.js';
import { errorFrame, isApiMethod, refusedMethod } from '../../src/contract/transport.js';
import { PipefillError } from '../../src/model/errors.js';

export const CHANNELS = { call: 'pipefill:call', cancel: 'pipefill:cancel', frame: 'pipefill:frame' } as const;

/** The part of an IpcMainEvent this needs. */
export interface CallEvent {
  readonly senderFrame: { readonly url: string } | null;
  readonly sender: { send(channel: string, ...args: unknown[]): void; isDestroyed?(): boolean };
}

/** The part of ipcMain this needs. */
export interface IpcMainLike {
  on(channel: string, listener: (event: CallEvent, ...args: unknown[]) => void): void;
  removeAllListeners(channel: string): void;
}

const CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function registerContract(ipc: IpcMainLike, api: PipefillApi, isTrusted: (frameUrl: string) => boolean): () => void {
  const running = new Map<string, AbortController>();

  ipc.on(CHANNELS.call, (event, callId, method, input) => {
    if (!event.senderFrame || !isTrusted(event.senderFrame.url) || typeof callId !== 'string' || !CALL_ID.test(callId)) return;
    const reply = (frame: WireFrame) => {
      if (!event.sender.isDestroyed?.()) event.sender.send(CHANNELS.frame, callId, frame);
    };
    const refused = refusedMethod(method);
    if (refused || typeof method !== 'string' || !isApiMethod(method)) {
      reply({ type: 'error', error: errorFrame(refused ?? new PipefillError('protocol', 'No such method.', 'Restart Pipefill.')) });
      return;
    }
    const controller = new AbortController();
    running.set(callId, controller);
    const call = api[method] as (input: unknown, options: { signal: AbortSignal; onProgress: (event: ProgressEvent) => void }) => Promise<unknown>;
    call(input, { signal: controller.signal, onProgress: (progress) => reply({ type: 'progress', event: progress }) })
      .then(
        (value) => reply({ type: 'result', value }),
        (error: unknown) => reply({ type: 'error', error: errorFrame(error) }),
      )
      .finally(() => running.delete(callId));
  });

  ipc.on(CHANNELS.cancel, (event, callId) => {
    if (!event.senderFrame || !isTrusted(event.senderFrame.url) || typeof callId !== 'string') return;
    running.get(callId)?.abort();
  });

  return () => {
    for (const controller of running.values()) controller.abort();
    ipc.removeAllListeners(CHANNELS.call);
    ipc.removeAllListeners(CHANNELS.cancel);
  };
}
