// The TCP stack that carries Pipefill's test copies: this machine's. On Linux
// its limits come from the same sysctl reader recommendations start from
// (per network namespace, so a copy run inside the lab's branch namespace
// sees the lab's values); elsewhere the Linux defaults stand in, and the
// report's environment says which OS it was.

import { readLinuxSysctlValues } from './current-values.js';
import type { EngineStack } from '../model/diagnosis.js';
import { DEFAULT_ENGINE_STACK } from '../model/diagnosis.js';

/** About half of a socket buffer carries payload (tcp_adv_win_scale 1). */
const halfOf = (value: unknown, fallback: number) => (typeof value === 'number' && value > 0 ? value / 2 : fallback);

export function localEngineStack(): EngineStack {
  const values = readLinuxSysctlValues();
  const congestion = values['linux.congestion-control'];
  return {
    receiveWindowBytes: halfOf(values['linux.tcp-rmem'], DEFAULT_ENGINE_STACK.receiveWindowBytes),
    sendWindowBytes: halfOf(values['linux.tcp-wmem'], DEFAULT_ENGINE_STACK.sendWindowBytes),
    initialWindowSegments: DEFAULT_ENGINE_STACK.initialWindowSegments,
    congestion: typeof congestion === 'string' && congestion !== '' ? congestion : DEFAULT_ENGINE_STACK.congestion,
  };
}

/**
 * `stack` with the congestion control the kernel ran on a connection to the
 * share, where the probe read it: a route may name its own (`ip route …
 * congctl`), whatever the machine's default (the sysctl) says.
 */
export function withKernelCongestion(stack: EngineStack, path: { readonly congestion?: string | undefined } | undefined): EngineStack {
  return path?.congestion === undefined ? stack : { ...stack, congestion: path.congestion };
}
