// The contract over a line-oriented byte stream (a child process's stdin and
// stdout): the same frames as the web host's HTTP stream and Electron's IPC,
// each tagged with its call's id, one JSON object per line. It lets a front
// end run its service in another process: `pipefill ui --demo` runs the
// assessments inside the WAN lab's branch namespace, whose sockets cross the
// emulated link, while the page is served on this machine's 127.0.0.1.
//
// Both halves are pure: they take lines and hand lines to a `send` function,
// so the process plumbing (src/web/service-process.ts, `pipefill service`)
// stays in the shells. Every line that arrives is checked before use: a
// request for a method the contract lacks, a frame for a call nobody made or
// a line that is not JSON is answered or dropped, never trusted.

import { z } from 'zod';
import { PipefillError } from '../model/errors.js';
import type { ApiMethod, CallOptions, PipefillApi } from './api.js';
import type { ProgressEvent } from './copy-test.js';
import type { WireFrame } from './transport.js';
import { apiOverTransport, errorFrame, errorFromFrame, isApiMethod, refusedMethod, WireFrameSchema } from './transport.js';

/**
 * The longest line either side accepts: a saved report or capacity run (the
 * largest inputs, MAX_REPORT_BYTES) as JSON inside a request, with room for
 * its escaping. A longer line is a fault or an attack, not a call.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

const CallIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const RequestLineSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('call'), id: CallIdSchema, method: z.string().max(64), input: z.unknown() }).strict(),
  z.object({ kind: z.literal('cancel'), id: CallIdSchema }).strict(),
]);
type RequestLine = z.infer<typeof RequestLineSchema>;

const ReplyLineSchema = z.object({ id: CallIdSchema, frame: WireFrameSchema }).strict();

function parseLine<T>(line: string, schema: z.ZodType<T>): T | undefined {
  if (line.length > MAX_LINE_CHARS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export interface LineServer {
  /** One line from the client (without its newline). */
  receive(line: string): void;
  /** The client went away: cancels every call still running. */
  close(): void;
}

/**
 * Serves `api` to one client: each request line starts a call whose progress,
 * result or error go back as reply lines; a cancel line aborts its call.
 */
export function serveApiOverLines(api: PipefillApi, send: (line: string) => void): LineServer {
  const running = new Map<number, AbortController>();
  const reply = (id: number, frame: WireFrame) => send(JSON.stringify({ id, frame }));
  const start = async (request: Extract<RequestLine, { kind: 'call' }>) => {
    const { id, method } = request;
    if (running.has(id)) {
      reply(id, { type: 'error', error: errorFrame(new PipefillError('protocol', `Call ${id} is already running.`, 'Each call needs an id of its own.')) });
      return;
    }
    const refused = refusedMethod(method);
    if (refused || !isApiMethod(method)) {
      reply(id, { type: 'error', error: errorFrame(refused ?? new PipefillError('protocol', 'No such method.', 'Restart Pipefill.')) });
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    try {
      const call = api[method] as (input: unknown, options: CallOptions) => Promise<unknown>;
      const value = await call(request.input, { signal: controller.signal, onProgress: (event) => reply(id, { type: 'progress', event }) });
      reply(id, { type: 'result', value });
    } catch (error) {
      reply(id, { type: 'error', error: errorFrame(error) });
    } finally {
      running.delete(id);
    }
  };
  return {
    receive(line) {
      const request = parseLine(line, RequestLineSchema);
      if (request === undefined) return;
      if (request.kind === 'cancel') running.get(request.id)?.abort();
      else void start(request);
    },
    close() {
      for (const controller of running.values()) controller.abort();
    },
  };
}

export interface LineClient {
  readonly api: PipefillApi;
  /** One line from the service (without its newline). */
  receive(line: string): void;
  /** The service is gone: every call still waiting fails with `reason`. */
  close(reason: PipefillError): void;
}

interface Waiting {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly onProgress?: (event: ProgressEvent) => void;
}

/** The typed API over a service that speaks serveApiOverLines; results are checked against the contract (apiOverTransport). */
export function apiOverLines(send: (line: string) => void): LineClient {
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let closed: PipefillError | undefined;
  const api = apiOverTransport(
    (method: ApiMethod, input: unknown, options) =>
      new Promise<unknown>((resolve, reject) => {
        if (closed) {
          reject(closed);
          return;
        }
        if (options.signal?.aborted) {
          reject(new PipefillError('cancelled', 'Cancelled.', 'Run it again when you are ready.'));
          return;
        }
        const id = nextId++;
        waiting.set(id, { resolve, reject, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
        // The service answers a cancelled call with its own error frame (cancelled, with what was cleaned up).
        options.signal?.addEventListener('abort', () => waiting.has(id) && send(JSON.stringify({ kind: 'cancel', id })), { once: true });
        send(JSON.stringify({ kind: 'call', id, method, input }));
      }),
  );
  return {
    api,
    receive(line) {
      const reply = parseLine(line, ReplyLineSchema);
      if (reply === undefined) return;
      const call = waiting.get(reply.id);
      if (call === undefined) return;
      const { frame } = reply;
      if (frame.type === 'progress') call.onProgress?.(frame.event);
      else {
        waiting.delete(reply.id);
        if (frame.type === 'result') call.resolve(frame.value);
        else call.reject(errorFromFrame(frame.error));
      }
    },
    close(reason) {
      closed = reason;
      for (const call of waiting.values()) call.reject(reason);
      waiting.clear();
    },
  };
}
