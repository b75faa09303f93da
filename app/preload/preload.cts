// The preload: exposes the contract's transport to the page, nothing else.
// CommonJS, as a sandboxed preload must be.

import type { IpcRendererEvent } from 'electron';
import type { WireFrame } from '../../src/contract/transport.js';
import electron = require('electron');

const { contextBridge, ipcRenderer } = electron;

const CALL = 'pipefill:call';
const CANCEL = 'pipefill:cancel';
const FRAME = 'pipefill:frame';

contextBridge.exposeInMainWorld('pipefillBridge', {
  call: (callId: string, method: string, input: unknown) => ipcRenderer.send(CALL, callId, method, input),
  cancel: (callId: string) => ipcRenderer.send(CANCEL, callId),
  onFrame: (callId: string, listener: (frame: WireFrame) => void) => {
    const handler = (_event: IpcRendererEvent, id: string, frame: WireFrame) => {
      if (id === callId) listener(frame);
    };
    ipcRenderer.on(FRAME, handler);
    return () => ipcRenderer.removeListener(FRAME, handler);
  },
});
