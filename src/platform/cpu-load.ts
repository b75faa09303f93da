// How much of this machine other programs use, measured while Pipefill
// itself is quiet: the CPU time every process spent (Linux's /proc/stat,
// whose first line counts all CPUs in USER_HZ ticks, 100 a second on every
// Linux ABI: Documentation/filesystems/proc.rst) less this process's own
// (process.cpuUsage), over the span's wall time, in cores. Elsewhere no such
// counter is read: undefined.

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const USER_HZ = 100;

/** The busy ticks of /proc/stat's "cpu" line (user, nice, system, irq, softirq, steal), or undefined for a line it cannot read. */
export function busyTicks(procStat: string): number | undefined {
  const line = procStat.split('\n', 1)[0] ?? '';
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== 'cpu' || fields.length < 9) return undefined;
  const numbers = fields.slice(1, 9).map((field) => (/^\d{1,20}$/.test(field) ? Number(field) : Number.NaN));
  if (!numbers.every((value) => Number.isSafeInteger(value))) return undefined;
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = numbers;
  return user + nice + system + irq + softirq + steal;
}

/** Cores other programs kept busy: the span's busy CPU time less this process's, over its wall time; never below 0 nor above the cores. */
export function otherCores(busySeconds: number, ownSeconds: number, wallSeconds: number, cores: number): number | undefined {
  if (!(wallSeconds > 0) || !Number.isFinite(busySeconds) || !Number.isFinite(ownSeconds)) return undefined;
  return Math.min(cores, Math.max(0, (busySeconds - ownSeconds) / wallSeconds));
}

export interface MachineLoad {
  /** Cores other programs kept busy over the span. */
  readonly otherCores: number;
  /** The cores this process may run on. */
  readonly cores: number;
}

function readBusy(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return busyTicks(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/** Other programs' load over `ms` of this process waiting (nothing of its own to do): undefined where it cannot be read. */
export async function otherProgramsLoad(ms: number, signal?: AbortSignal): Promise<MachineLoad | undefined> {
  const before = readBusy();
  if (before === undefined) return undefined;
  const own = process.cpuUsage();
  const startedAt = performance.now();
  await new Promise<void>((resolve) => {
    // The listener goes with the wait: an assessment's signal lives on through every later step.
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
  const after = readBusy();
  if (after === undefined || signal?.aborted) return undefined;
  const used = process.cpuUsage(own);
  const cores = availableParallelism();
  const others = otherCores((after - before) / USER_HZ, (used.user + used.system) / 1e6, (performance.now() - startedAt) / 1000, cores);
  return others === undefined ? undefined : { otherCores: others, cores };
}
