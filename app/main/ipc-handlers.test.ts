// The Electron IPC registry, without Electron: a fake ipcMain, the real
// contract behind it, and the checks every message must pass.

import { describe, expect, it } from 'vitest';
import type { PipefillApi } from '../../src/contract/api.js';
import { API_METHODS } from '../../src/contract/transport.js';
import type { WireFrame } from '../../src/contract/transport.js';
import { createLocalApi } from '../../src/service/local-api.js';
import type { CallEvent, IpcMainLike } from './ipc-handlers.js';
import { CHANNELS, registerContract } from './ipc-handlers.js';

const PAGE = 'file:///opt/pipefill/dist/renderer/index.html';

function fakeIpc() {
  const listeners = new Map<string, (event: CallEvent, ...args: unknown[]) => void>();
  const frames: { callId: string; frame: WireFrame }[] = [];
  const ipc: IpcMainLike = {
    on: (channel, listener) => listeners.set(channel, listener),
    removeAllListeners: (channel) => listeners.delete(channel),
  };
  const event = (url: string): CallEvent => ({
    senderFrame: { url },
    sender: { send: (_channel, callId, frame) => frames.push({ callId: callId as string, frame: frame as WireFrame }) },
  });
  const send = (channel: string, url: string, ...args: unknown[]) => listeners.get(channel)?.(event(url), ...args);
  const settled = async (callId: string) => {
    for (let i = 0; i < 200; i++) {
      const last = frames.filter((f) => f.callId === callId).at(-1);
      if (last && last.frame.type !== 'progress') return last.frame;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`call ${callId} did not settle`);
  };
  return { ipc, frames, send, settled, listeners };
}

describe('registerContract', () => {
  it('answers every method of the contract with a result or a typed error', async () => {
    const { ipc, send, settled } = fakeIpc();
    registerContract(ipc, createLocalApi({ shell: 'electron' }), (url) => url === PAGE);
    send(CHANNELS.call, PAGE, 'c1', 'predict', {
      client: 'win7-smb2',
      server: 'win2012plus',
      op: 'read',
      workload: 'file:100MB',
      bandwidth: '155mbit',
      rtt: '32ms',
    });
    const result = await settled('c1');
    expect(result.type).toBe('result');
    send(CHANNELS.call, PAGE, 'c2', 'hostInfo', {});
    expect(await settled('c2')).toMatchObject({ type: 'result', value: { shell: 'electron' } });
    // Every method is reachable: a wrong input comes back as bad-input, never silence.
    for (const [index, method] of API_METHODS.entries()) {
      send(CHANNELS.call, PAGE, `m${index}`, method, { unexpected: true });
      const frame = await settled(`m${index}`);
      expect(frame.type === 'error' ? frame.error.kind : 'result').toBe('bad-input');
    }
  });

  it('ignores messages from any other page, and refuses unknown methods', async () => {
    const { ipc, send, frames, settled } = fakeIpc();
    registerContract(ipc, createLocalApi(), (url) => url === PAGE);
    send(CHANNELS.call, 'https://evil.example/', 'x1', 'hostInfo', {});
    send(CHANNELS.call, PAGE, 'bad id with spaces', 'hostInfo', {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(frames).toEqual([]);
    send(CHANNELS.call, PAGE, 'x2', 'rm -rf', {});
    expect(await settled('x2')).toMatchObject({ type: 'error', error: { kind: 'protocol' } });
  });

  it('forwards progress and cancels a running call', async () => {
    const { ipc, send, frames, settled } = fakeIpc();
    const slow: PipefillApi = {
      ...createLocalApi(),
      assess: (_input, options) =>
        new Promise((_resolve, reject) => {
          options?.onProgress?.({ step: 'probe', bytes: 0, totalBytes: 0, fraction: 0 });
          options?.signal?.addEventListener('abort', () => reject(Object.assign(new Error('The test copy was cancelled.'), { kind: 'cancelled' })));
        }),
    };
    registerContract(ipc, slow, (url) => url === PAGE);
    send(CHANNELS.call, PAGE, 'a1', 'assess', {});
    expect(frames[0]?.frame).toEqual({ type: 'progress', event: { step: 'probe', bytes: 0, totalBytes: 0, fraction: 0 } });
    send(CHANNELS.cancel, 'https://evil.example/', 'a1');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(frames).toHaveLength(1);
    send(CHANNELS.cancel, PAGE, 'a1');
    expect(await settled('a1')).toMatchObject({ type: 'error', error: { message: 'The test copy was cancelled.' } });
  });

  it('removes its listeners when disposed', () => {
    const { ipc, listeners } = fakeIpc();
    const dispose = registerContract(ipc, createLocalApi(), () => true);
    expect([...listeners.keys()].sort()).toEqual([CHANNELS.call, CHANNELS.cancel].sort());
    dispose();
    expect(listeners.size).toBe(0);
  });
});
