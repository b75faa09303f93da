// The client half of the web mode's transport: POST /api/<method> with the
// run's token, read the newline-delimited frames as they stream, hand
// progress to the caller, and resolve with the result. Aborting the signal
// aborts the request, which the host turns into a cancel of the call.

import { PipefillError } from '../model/errors.js';
import type { Send } from './transport.js';
import { errorFromFrame, parseFrames } from './transport.js';

/** The part of fetch this needs; the browser's and Node's both fit. */
/** What a page without a session can do (no restart needed where the service still runs). */
export const SESSION_WAY_OUT =
  'In the terminal where Pipefill runs, press Enter: it prints a new address (each opens one page). If it no longer runs, start it again (npm start, or pipefill ui).';

export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<{
  ok: boolean;
  status: number;
  body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array | undefined }> } } | null;
  text(): Promise<string>;
}>;

export function httpSend(baseUrl: string, token: string, fetchImpl: FetchLike): Send {
  return async (method, input, options) => {
    let response;
    try {
      response = await fetchImpl(`${baseUrl}/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(input ?? {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw new PipefillError('cancelled', 'The call was cancelled.', 'Nothing was left on the share.');
      // The browser says only "network error": what it means here is that the process serving this page is gone.
      throw new PipefillError(
        'connection-lost',
        `Pipefill's service stopped answering (${error instanceof Error ? error.message : String(error)}): it was stopped, or the terminal running it was closed. A run under way stopped with it; a scratch folder it left on the share is removed by the next run there.`,
        'Start Pipefill again (npm start, or pipefill ui) and open the address it prints.',
      );
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      throw new PipefillError(
        response.status === 401 ? 'unauthorised' : 'protocol',
        `The service refused the call (HTTP ${response.status}): ${text.slice(0, 200)}`,
        response.status === 401 ? SESSION_WAY_OUT : 'Start Pipefill again (npm start, or pipefill ui).',
      );
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (options.signal?.aborted) throw new PipefillError('cancelled', 'The call was cancelled.', 'Nothing was left on the share.');
        throw error;
      }
      if (chunk.value) buffered += decoder.decode(chunk.value, { stream: true });
      const { frames, rest } = parseFrames(chunk.done ? `${buffered}\n` : buffered);
      buffered = rest;
      for (const frame of frames) {
        if (frame.type === 'progress') options.onProgress?.(frame.event);
        else if (frame.type === 'error') throw errorFromFrame(frame.error);
        else return frame.value;
      }
      if (chunk.done) throw new PipefillError('protocol', `The ${method} call ended without a result.`, 'The service may have stopped; restart `pipefill ui`.');
    }
  };
}
