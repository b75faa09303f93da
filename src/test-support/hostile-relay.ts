// A relay of the tests' own between the engine and a real smbd that turns
// the server hostile on cue: it walks the server's frames (a 4-byte length
// each, then the SMB2 header) and lets a scenario pass, rewrite, replace or
// stall each one, or trickle everything from some point on. The engine sees
// exactly the bytes a broken or malicious server would send.

import type { Server, Socket } from 'node:net';
import { createConnection, createServer } from 'node:net';

/** What the relay knows of a server frame when the scenario decides on it. */
export interface FrameInfo {
  /** 0 for the first frame the server sends on this connection. */
  readonly index: number;
  /** Which connection through the relay (0 first). */
  readonly connection: number;
  /** The SMB2 command of the frame's first message (-1 when it is not a plain SMB2 message). */
  readonly command: number;
  readonly status: number;
}

export type FrameAction =
  | { readonly kind: 'pass' }
  /** Send these bytes instead of the frame (length prefix included). */
  | { readonly kind: 'replace'; readonly bytes: Buffer }
  /** Send nothing more on this connection, ever. */
  | { readonly kind: 'silence' }
  /** From this frame on, one byte every `everyMs`. */
  | { readonly kind: 'trickle'; readonly everyMs: number }
  /** From this frame on, nothing the server sends, but `bytes` (framed) every `everyMs`: messages that answer nothing. */
  | { readonly kind: 'keepalive'; readonly everyMs: number; readonly bytes: Buffer };

export type Scenario = (frame: Buffer, info: FrameInfo) => FrameAction;

/** A frame (without its length prefix) with its length prefix. */
export function framed(frame: Buffer): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(frame.length & 0xffffff);
  return Buffer.concat([prefix, frame]);
}

/** The first `count` bytes across `parts`, copying no more than those. */
function firstBytes(parts: readonly Buffer[], count: number): Buffer {
  const taken: Buffer[] = [];
  let have = 0;
  for (const part of parts) {
    if (have >= count) break;
    const take = part.subarray(0, count - have);
    taken.push(take);
    have += take.length;
  }
  return Buffer.concat(taken);
}

export interface HostileRelay {
  readonly port: number;
  /** Frames the scenario did something other than pass. */
  acted(): number;
  close(): Promise<void>;
}

export async function hostileRelay(target: { host: string; port: number }, scenario: Scenario): Promise<HostileRelay> {
  let acted = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const relay: Server = createServer((client) => {
    const connection = connections++;
    const upstream = createConnection(target.port, target.host);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    let held: Buffer[] = [];
    let heldBytes = 0;
    let index = 0;
    let mode: 'frames' | 'silent' | 'trickle' = 'frames';
    let trickleQueue: Buffer[] = [];
    const startTrickle = (everyMs: number, first: Buffer) => {
      mode = 'trickle';
      trickleQueue = [first];
      const timer = setInterval(() => {
        const head = trickleQueue[0];
        if (!head || client.destroyed) return;
        client.write(head.subarray(0, 1));
        if (head.length > 1) trickleQueue[0] = head.subarray(1);
        else trickleQueue.shift();
      }, everyMs);
      timers.add(timer);
    };
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'silent') return;
      if (mode === 'trickle') {
        trickleQueue.push(Buffer.from(chunk));
        return;
      }
      // Chunks gather until the frame they belong to is whole, then join once: joining each 64 KiB chunk onto the rest
      // copied an 8 MiB frame 128 times, and the relay's garbage, not the engine's, filled the memory the tests bound.
      held.push(chunk);
      heldBytes += chunk.length;
      const needed = pending.length + heldBytes >= 4 ? 4 + (firstBytes([pending, ...held], 4).readUInt32BE(0) & 0xffffff) : 4;
      if (pending.length + heldBytes < needed) return;
      pending = Buffer.concat([pending, ...held]);
      held = [];
      heldBytes = 0;
      while (pending.length >= 4) {
        const length = pending.readUInt32BE(0) & 0xffffff;
        if (pending.length < 4 + length) break;
        const whole = pending.subarray(0, 4 + length);
        const frame = whole.subarray(4);
        pending = pending.subarray(4 + length);
        const plain = frame.length >= 64 && frame.readUInt32BE(0) === 0xfe534d42;
        const action = scenario(Buffer.from(frame), {
          index: index++,
          connection,
          command: plain ? frame.readUInt16LE(12) : -1,
          status: plain ? frame.readUInt32LE(8) : 0,
        });
        if (action.kind !== 'pass') acted++;
        if (action.kind === 'pass') client.write(Buffer.from(whole));
        else if (action.kind === 'replace') client.write(action.bytes);
        else if (action.kind === 'silence') {
          mode = 'silent';
          return;
        } else if (action.kind === 'keepalive') {
          mode = 'silent';
          const keepalive = action.bytes;
          const timer = setInterval(() => {
            if (!client.destroyed) client.write(keepalive);
          }, action.everyMs);
          timers.add(timer);
          return;
        } else {
          startTrickle(action.everyMs, Buffer.concat([whole, pending]));
          pending = Buffer.alloc(0);
          return;
        }
      }
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    acted: () => acted,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}
