// The contract over a wire: the frames a call streams back (progress events,
// then one result or one error), and the client half that turns any
// `send` function into the typed PipefillApi, checking every result against
// the contract's output schema. The web host's HTTP stream and Electron's IPC
// both carry these frames, so the renderer has one client for both.

import { z } from 'zod';
import { PipefillError, PipefillInputError } from '../model/errors.js';
import type { ApiInput, ApiMethod, ApiOutput, CallOptions, PipefillApi } from './api.js';
import { apiContract } from './api.js';
import type { ProgressEvent } from './copy-test.js';
import { ProgressEventSchema } from './copy-test.js';

export const ErrorFrameSchema = z.object({ kind: z.string(), message: z.string(), hint: z.string() });
export type ErrorFrame = z.infer<typeof ErrorFrameSchema>;

export const WireFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), event: ProgressEventSchema }),
  z.object({ type: z.literal('result'), value: z.unknown() }),
  z.object({ type: z.literal('error'), error: ErrorFrameSchema }),
]);
export type WireFrame = z.infer<typeof WireFrameSchema>;

/** Any error as the frame a front end can show: typed errors keep their kind and hint. */
export function errorFrame(error: unknown): ErrorFrame {
  if (error instanceof PipefillError) return { kind: error.kind, message: error.message, hint: error.hint };
  return {
    kind: 'internal',
    message: error instanceof Error ? error.message : String(error),
    hint: 'This is a fault in Pipefill; the log of the process that served the call has the details.',
  };
}

/** The error a client rethrows from an error frame: the same kind, message and hint. */
export function errorFromFrame(frame: ErrorFrame): PipefillError {
  return new PipefillError(frame.kind, frame.message, frame.hint);
}

export const API_METHODS = Object.keys(apiContract) as ApiMethod[];

export function isApiMethod(name: string): name is ApiMethod {
  return (API_METHODS as string[]).includes(name);
}

/**
 * Calls no transport serves: they change the machine the services run on
 * (apply), so only a front end on that machine, in the services' own process
 * (the CLI), makes them. A page, whether the web mode's or Electron's, cannot.
 */
export const LOCAL_ONLY_METHODS: ReadonlySet<string> = new Set<ApiMethod>(['apply']);

/** Why a transport will not serve `name`: no such method, or a local-only one; undefined when it may. */
export function refusedMethod(name: unknown): PipefillError | undefined {
  if (typeof name !== 'string' || !isApiMethod(name))
    return new PipefillError('protocol', `No such method: ${String(name).slice(0, 64)}.`, 'The app and its service are different versions; restart Pipefill.');
  if (LOCAL_ONLY_METHODS.has(name))
    return new PipefillInputError(`${name} changes the machine the services run on, and is not served to pages.`, `Run \`pipefill ${name}\` on that machine.`);
  return undefined;
}

/** Sends one call and resolves with the raw result value (the transport turns error frames into rejections). */
export type Send = (method: ApiMethod, input: unknown, options: { signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void }) => Promise<unknown>;

/** The typed API over a transport: inputs go as given (the server validates), outputs are checked here. */
export function apiOverTransport(send: Send): PipefillApi {
  const call = async <M extends ApiMethod>(method: M, input: ApiInput<M>, options: CallOptions = {}): Promise<ApiOutput<M>> => {
    const value = await send(method, input, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const parsed = apiContract[method].output.safeParse(value);
    if (!parsed.success)
      throw new PipefillError(
        'protocol',
        `The ${method} result did not match the contract: ${parsed.error.issues[0]?.message ?? 'unknown'}.`,
        'The app and its service are different versions; restart Pipefill.',
      );
    return parsed.data as ApiOutput<M>;
  };
  return Object.fromEntries(
    API_METHODS.map((method) => [method, (input: unknown, options?: CallOptions) => call(method, input as never, options)]),
  ) as unknown as PipefillApi;
}

/** Splits a streamed body into frames: newline-delimited JSON, validated. */
export function parseFrames(buffered: string): { frames: WireFrame[]; rest: string } {
  const lines = buffered.split('\n');
  const rest = lines.pop() ?? '';
  const frames = lines.filter((line) => line.trim() !== '').map((line) => WireFrameSchema.parse(JSON.parse(line)));
  return { frames, rest };
}
