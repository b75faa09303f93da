// The local web mode: the renderer and the one API contract, served on
// 127.0.0.1 only. Every API call needs a session token. The address printed
// and handed to the browser carries no token but a single-use launch code
// (in the fragment, so it never reaches a log or a Referer): the page trades
// it once for a session token (POST /session), which lives only in the page,
// and clears it from the address bar. The browser's command line, readable
// by every local user in /proc/<pid>/cmdline, and its history thus hold a
// code that is spent; a code someone else spends first leaves the page
// refusing to start, which shows. Requests whose Host or Origin is not this
// address are refused, so another site in the same browser cannot drive it
// (DNS rebinding, CSRF).
//
// POST /api/<method> streams newline-delimited frames: progress events, then
// one result or one error. A client that goes away cancels its call.

import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import type { PipefillApi } from '../contract/api.js';
import type { WireFrame } from '../contract/transport.js';
import { errorFrame, isApiMethod, refusedMethod } from '../contract/transport.js';
import { MAX_REPORT_BYTES } from '../contract/report.js';
import { PipefillInputError } from '../model/errors.js';
import { SESSION_IDLE_MS, WebSessions } from './web-sessions.js';

export interface WebHostOptions {
  readonly api: PipefillApi;
  /** The built renderer (index.html and its assets). */
  readonly rendererDir: string;
  /** 0 or absent: a free port. */
  readonly port?: number;
  /** A page's session unused this long ends (default SESSION_IDLE_MS). */
  readonly sessionIdleMs?: number;
  /** The clock sessions and launch codes age by (default Date.now; tests step their own). */
  readonly now?: () => number;
  /**
   * A launch code someone tried to spend again: the page that got it first
   * may not have been the person's (something on this machine read the
   * address). The shell tells the person.
   */
  readonly onLaunchCodeReused?: () => void;
}

export interface WebHost {
  /** The address to open: a single-use launch code in its fragment. */
  readonly url: string;
  readonly origin: string;
  /** A session for callers in this process (tests, the CLI's own checks). */
  readonly token: string;
  /** Another address to open, with a fresh launch code (each opens one page). */
  launchUrl(): string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Calls that carry a whole saved document (a report to keep in the history,
 * or to recommend from) take one as large as Pipefill opens anywhere: a long
 * --full run's timelines pass 1 MiB.
 */
const DOCUMENT_METHODS: ReadonlySet<string> = new Set(['historySave', 'recommend', 'openDocumentsAdd', 'exportDocument']);
const MAX_DOCUMENT_BODY_BYTES = MAX_REPORT_BYTES + 64 * 1024;
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};
/** The renderer needs nothing from elsewhere: scripts and styles from here, data only from this API. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Discard the rest rather than reset the connection, so the client reads why (the server's requestTimeout bounds a body that never ends).
        reject(new PipefillInputError(`The request body is over ${Math.round(limit / 1024 / 1024)} MiB.`, 'Send smaller inputs.'));
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  response.end(message);
}

/** A file of the built page, with its security headers; only files under the renderer's folder. */
function serveFile(rendererDir: string, indexFile: string, path: string, response: ServerResponse): void {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    refuse(response, 400, 'Bad path.');
    return;
  }
  const file = path === '/' ? indexFile : normalize(join(rendererDir, decoded));
  // Only files under the renderer's folder.
  if (!file.startsWith(rendererDir + sep) || !existsSync(file) || !statSync(file).isFile()) {
    refuse(response, 404, 'Not found.');
    return;
  }
  response.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  response.end(readFileSync(file));
}

/** Trades a launch code, once, for a session; a code used twice says that something else opened the address first. */
async function serveLaunch(sessions: WebSessions, onReused: (() => void) | undefined, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let code = '';
  try {
    const parsed = JSON.parse(await readBody(request, MAX_BODY_BYTES)) as unknown;
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { launch?: unknown }).launch === 'string')
      code = (parsed as { launch: string }).launch;
  } catch {
    // an empty or broken body spends nothing
  }
  if (!sessions.spendLaunchCode(code)) {
    if (code !== '' && sessions.wasSpent(code)) {
      // Opened twice: if the person opened it once, something else on this machine opened it first.
      onReused?.();
      refuse(
        response,
        403,
        'This launch address was used already, by another page or program. If you opened it only now, something else on this computer read it and opened it first: stop Pipefill (Ctrl-C) and start it again.',
      );
      return;
    }
    refuse(response, 403, "This launch address has expired, or is not this run's.");
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  response.end(JSON.stringify({ token: sessions.add() }));
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const sessions = new WebSessions(options.sessionIdleMs ?? SESSION_IDLE_MS, options.now ?? Date.now);
  const token = sessions.add();
  const indexFile = join(options.rendererDir, 'index.html');
  if (!existsSync(indexFile))
    throw new PipefillInputError(`The renderer is not built (${indexFile} is missing).`, 'Run `npm run build` (npm start and npm test build it on first use).');
  const allowedHosts = new Set<string>();
  const allowedOrigins = new Set<string>();

  const serveCall = async (method: string, request: IncomingMessage, response: ServerResponse) => {
    const refused = refusedMethod(method);
    if (refused || !isApiMethod(method)) {
      refuse(response, 404, refused?.message ?? 'No such method.');
      return;
    }
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!sessions.isLive(given)) {
      refuse(response, 401, "This page's session has ended (unused for hours, or Pipefill restarted).");
      return;
    }
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
      refuse(response, 415, 'Send JSON.');
      return;
    }
    const controller = new AbortController();
    // The client went away before the answer: cancel the call.
    response.on('close', () => {
      if (!response.writableFinished) controller.abort();
    });
    response.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    const send = (frame: WireFrame) => {
      if (!response.destroyed) response.write(`${JSON.stringify(frame)}\n`);
    };
    try {
      const body = await readBody(request, DOCUMENT_METHODS.has(method) ? MAX_DOCUMENT_BODY_BYTES : MAX_BODY_BYTES);
      let input: unknown;
      try {
        input = body.trim() === '' ? {} : JSON.parse(body);
      } catch {
        throw new PipefillInputError('The request body is not JSON.', 'Send the input as a JSON object.');
      }
      const call = options.api[method] as (input: unknown, options: { signal: AbortSignal; onProgress: (event: unknown) => void }) => Promise<unknown>;
      const value = await call(input, { signal: controller.signal, onProgress: (event) => send({ type: 'progress', event } as WireFrame) });
      send({ type: 'result', value });
    } catch (error) {
      send({ type: 'error', error: errorFrame(error) });
    }
    response.end();
  };

  const server: Server = createServer((request, response) => {
    // DNS rebinding and cross-site requests: only this host, only this origin.
    if (!allowedHosts.has(request.headers.host ?? '')) {
      refuse(response, 421, 'Wrong host.');
      return;
    }
    const requestOrigin = request.headers.origin;
    if (requestOrigin !== undefined && !allowedOrigins.has(requestOrigin)) {
      refuse(response, 403, 'Cross-origin requests are refused.');
      return;
    }
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'POST' && path === '/session') {
      void serveLaunch(sessions, options.onLaunchCodeReused, request, response);
      return;
    }
    if (request.method === 'POST' && path.startsWith('/api/')) {
      void serveCall(path.slice('/api/'.length), request, response);
      return;
    }
    if (request.method === 'GET' || request.method === 'HEAD') {
      serveFile(options.rendererDir, indexFile, path, response);
      return;
    }
    refuse(response, 405, 'Method not allowed.');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PipefillInputError(`Port ${options.port} is in use.`, 'Choose another with --port, or leave it out for a free one.')
          : error,
      ),
    );
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  allowedHosts.add(`127.0.0.1:${port}`);
  allowedHosts.add(`localhost:${port}`);
  for (const host of allowedHosts) allowedOrigins.add(`http://${host}`);
  const launchUrl = () => `${origin}/#launch=${sessions.newLaunchCode()}`;
  return {
    url: launchUrl(),
    origin,
    token,
    launchUrl,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
