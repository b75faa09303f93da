// The renderer's one way to the services: the typed contract, over
// Electron's preload bridge when the app runs in Electron, else over the web
// mode's HTTP stream with the token from the page address.

import type { PipefillApi } from '../../../../src/contract/api.js';
import { httpSend } from '../../../../src/contract/http-send.js';
import type { Send, WireFrame } from '../../../../src/contract/transport.js';
import { apiOverTransport, errorFromFrame } from '../../../../src/contract/transport.js';
import { PipefillError } from '../../../../src/model/errors.js';

/** What app/preload exposes on window (and nothing else). */
export interface PipefillBridge {
  call(callId: string, method: string, input: unknown): void;
  cancel(callId: string): void;
  /** Frames for one call; returns a function that stops listening. */
  onFrame(callId: string, listener: (frame: WireFrame) => void): () => void;
}

declare global {
  interface Window {
    pipefillBridge?: PipefillBridge;
  }
}

function bridgeSend(bridge: PipefillBridge): Send {
  let next = 0;
  return (method, input, options) =>
    new Promise((resolve, reject) => {
      const callId = `${Date.now().toString(36)}-${next++}`;
      const stop = bridge.onFrame(callId, (frame) => {
        if (frame.type === 'progress') {
          options.onProgress?.(frame.event);
          return;
        }
        stop();
        options.signal?.removeEventListener('abort', onAbort);
        if (frame.type === 'error') reject(errorFromFrame(frame.error));
        else resolve(frame.value);
      });
      const onAbort = () => bridge.cancel(callId);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      bridge.call(callId, method, input);
    });
}

/** The token the web mode printed, from `#token=…` (kept out of the server's logs and Referer headers). */
export function tokenFromHash(hash: string): string | undefined {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(hash);
  return match?.[1];
}

export function connect(): PipefillApi {
  if (window.pipefillBridge) return apiOverTransport(bridgeSend(window.pipefillBridge));
  const token = tokenFromHash(window.location.hash);
  if (!token) {
    const missing: Send = () => Promise.reject(new PipefillError('unauthorised', 'This page was opened without its token.', 'Open the full address that `pipefill ui` printed (it ends in #token=…).'));
    return apiOverTransport(missing);
  }
  return apiOverTransport(httpSend(window.location.origin, token, (url, init) => window.fetch(url, init)));
}
