// The V8 flags a process that runs copies starts with.
//
// Why `--no-memory-reducer`: V8's memory reducer runs a heap-shrinking full
// GC about 8 s after the last one whenever the process allocates little, which
// is what a process waiting on the network looks like. The main thread then
// stops for 3-10 ms (`node --trace-gc`: "Mark-Compact (reduce)", 7.6-10.4 ms,
// plus incremental steps of up to 6.7 ms). The socket's bytes wait unread
// meanwhile, and Linux then holds its ACKs back (tcp_input.c,
// __tcp_ack_snd_check: an ACK goes out every second segment only while the
// window it would announce is no smaller than the last): the sender gets one
// ACK for 10-30 segments and sends them back to back. Measured in the WAN lab
// (50 Mb/s, 20 ms, a queue of 1/8 BDP, CUBIC, 24 MiB pipefill-max reads,
// 2026-11-24): kernel tracepoints showed 2-6 such stretch ACKs per read, the
// main thread off its socket while V8's own threads ran (--trace-gc put two
// reducer GCs in the read), and the bursts that followed overflowed
// the ten-packet queue with the window at 61-65 segments where the model's
// cycle peaks at 97; five alternating runs read at a median of 32.0 Mb/s with
// the reducer and 37.1 without it (model 38.2).
//
// They cannot be set once a heap exists (v8.setFlagsFromString left the
// reducer running), and a CLI that relaunched itself with them would get
// every group-wide SIGTERM twice (once itself, once forwarded), the second
// cutting its clean-up short. So every launcher passes them to Node: the
// installed command's shebang (bin/pipefill.js, `env -S`, which npm's Windows
// shims read too), the npm scripts `start` and `pipefill`, Electron's
// --js-flags (scripts/start.mjs), and the lab, benchmarks and e2e tests that
// run the CLI (engine-flags.test.ts checks the first three).

/** Flags every Node process that drives copies starts with. */
export const ENGINE_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];

/** The engine flags missing from a process's Node arguments (`process.execArgv`). */
export function missingEngineFlags(execArgv: readonly string[]): string[] {
  return ENGINE_NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}
