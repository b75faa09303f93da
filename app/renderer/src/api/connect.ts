// The renderer's one way to the services: the typed contract, over
// Electron's preload bridge when the app runs in Electron, else over the web
// mode's HTTP stream with a session token. The page is opened with a
// single-use launch code in its address (#launch=…); it trades the code for
// a session at once, keeps the session in this tab's sessionStorage (so a
// reload or a planner link followed in the tab still works) and clears the
// code from the address bar and the history entry.

import type { PipefillApi } from '../../../../src/contract/api.js';
import { httpSend, SESSION_WAY_OUT } from '../../../../src/contract/http-send.js';
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

/** The launch code `pipefill ui` printed, from `#launch=…`. */
export function launchCodeFromHash(hash: string): string | undefined {
  const match = /(?:^#|&)launch=([A-Za-z0-9_-]+)/.exec(hash);
  return match?.[1];
}

/** The address without its launch code (what stays in the address bar and history). */
export function hashWithoutLaunchCode(hash: string): string {
  const rest = hash
    .replace(/^#/, '')
    .split('&')
    .filter((part) => part !== '' && !part.startsWith('launch='));
  return rest.length === 0 ? '' : `#${rest.join('&')}`;
}

const SESSION_KEY = 'pipefill-session';

/** Trades the launch code for a session; the code is spent whatever the answer. */
async function exchange(code: string): Promise<string> {
  const response = await window.fetch(`${window.location.origin}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ launch: code }),
  });
  if (!response.ok) throw new PipefillError('unauthorised', (await response.text()) || 'The launch address was refused.', SESSION_WAY_OUT);
  const { token } = (await response.json()) as { token?: unknown };
  if (typeof token !== 'string') throw new PipefillError('protocol', 'The service gave no session.', SESSION_WAY_OUT);
  return token;
}

/** This tab's session: a stored one, or one traded for the launch code in the address. */
function session(): Promise<string> {
  const code = launchCodeFromHash(window.location.hash);
  if (code) {
    // Off the address bar and out of the history entry before anything else happens.
    window.history.replaceState(null, '', `${window.location.pathname}${hashWithoutLaunchCode(window.location.hash)}`);
    return exchange(code).then((token) => {
      window.sessionStorage.setItem(SESSION_KEY, token);
      return token;
    });
  }
  const stored = window.sessionStorage.getItem(SESSION_KEY);
  if (stored) return Promise.resolve(stored);
  return Promise.reject(
    new PipefillError('unauthorised', 'This page was opened without its launch address (the one Pipefill prints ends in #launch=…).', SESSION_WAY_OUT),
  );
}

export function connect(): PipefillApi {
  if (window.pipefillBridge) return apiOverTransport(bridgeSend(window.pipefillBridge));
  const sending: Promise<Send> = session().then((token) => httpSend(window.location.origin, token, (url, init) => window.fetch(url, init)));
  // Calls made before the trade completes wait for it; a refused trade fails every call with its reason.
  sending.catch(() => undefined);
  return apiOverTransport((method, input, options) => sending.then((send) => send(method, input, options)));
}
