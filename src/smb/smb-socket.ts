// The TCP connection under an SMB2 connection: opened with a deadline and a
// cancel, its failures named for a person (refused, unreachable, no
// answer), and its reads landing in the buffers the frame reader picks, so
// a large reply arrives in place.

import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { cancelledError, SmbError } from './errors.js';
import type { FrameReader } from './framing.js';

export interface ConnectOptions {
  /** How long the TCP handshake may take (default 5 s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Opens a socket to host:port whose reads go into `reader`'s buffers, `onBytes` told of each. */
export function openSmbSocket(
  host: string,
  port: number,
  reader: FrameReader,
  onBytes: (bytes: number) => void,
  options: ConnectOptions = {},
): Promise<Socket> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(cancelledError());
      return;
    }
    // (Node honours `onread` in net.connect(), not in socket.connect() on a Socket made first.)
    const socket = connect({
      port,
      host,
      onread: {
        buffer: () => reader.nextBuffer(),
        callback: (bytes: number) => {
          onBytes(bytes);
          return true;
        },
      },
    });
    const finish = (error?: SmbError) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      socket.removeAllListeners('connect');
      socket.removeAllListeners('error');
      if (error) {
        socket.destroy();
        reject(error);
      } else {
        resolve(socket);
      }
    };
    const onAbort = () => finish(cancelledError());
    const timer = setTimeout(
      () =>
        finish(
          new SmbError(
            'unreachable',
            `No answer from ${host}:${port} within ${timeoutMs / 1000} s.`,
            'Check the server name and port, and that a firewall lets SMB (TCP 445) through.',
          ),
        ),
      timeoutMs,
    );
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish());
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const refused = error.code === 'ECONNREFUSED';
      finish(
        new SmbError(
          'unreachable',
          refused ? `Nothing is listening on ${host}:${port} (connection refused).` : `Cannot reach ${host}:${port}: ${error.message}.`,
          refused ? 'Check the port, and that the SMB server is running.' : 'Check the server name and the network path to it.',
          undefined,
          { cause: error },
        ),
      );
    });
  });
}

/** Calls `fail` with a person's words when the socket errors or the server closes it. */
export function onSocketEnd(socket: Socket, server: string, fail: (error: SmbError) => void): void {
  socket.on('error', (error) =>
    fail(
      new SmbError('connection-lost', `The connection to ${server} failed: ${error.message}.`, 'Check that the server is running and reachable.', undefined, {
        cause: error,
      }),
    ),
  );
  socket.on('close', () =>
    fail(
      new SmbError('connection-lost', `The server ${server} closed the connection.`, 'The server may have stopped or dropped the session; its log says why.'),
    ),
  );
}
