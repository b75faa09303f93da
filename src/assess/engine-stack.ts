// The TCP stack that carries Pipefill's test copies: this machine's. On Linux
// its limits are in /proc (per network namespace, so a copy run inside the
// lab's branch namespace reads the lab's values); elsewhere the Linux
// defaults stand in, and the report's environment says which OS it was.

import { readFileSync } from 'node:fs';
import type { EngineStack } from '../model/diagnosis.js';
import { DEFAULT_ENGINE_STACK } from '../model/diagnosis.js';

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The maximum of a `min default max` triple such as tcp_rmem, when it parses. */
function maxOfTriple(text: string | undefined): number | undefined {
  const max = Number(text?.split(/\s+/)[2]);
  return Number.isFinite(max) && max > 0 ? max : undefined;
}

/** Parses the three /proc values (pure, for tests). About half of a socket buffer carries payload (tcp_adv_win_scale 1). */
export function engineStackFrom(rmem: string | undefined, wmem: string | undefined, congestion: string | undefined): EngineStack {
  const receive = maxOfTriple(rmem);
  const send = maxOfTriple(wmem);
  return {
    receiveWindowBytes: receive === undefined ? DEFAULT_ENGINE_STACK.receiveWindowBytes : receive / 2,
    sendWindowBytes: send === undefined ? DEFAULT_ENGINE_STACK.sendWindowBytes : send / 2,
    initialWindowSegments: DEFAULT_ENGINE_STACK.initialWindowSegments,
    congestion: congestion && /^[a-z0-9_]+$/.test(congestion) ? congestion : DEFAULT_ENGINE_STACK.congestion,
  };
}

export function localEngineStack(): EngineStack {
  if (process.platform !== 'linux') return DEFAULT_ENGINE_STACK;
  return engineStackFrom(readProc('/proc/sys/net/ipv4/tcp_rmem'), readProc('/proc/sys/net/ipv4/tcp_wmem'), readProc('/proc/sys/net/ipv4/tcp_congestion_control'));
}
