// People whose copies go one request at a time (or a few) share a drop-tail
// bottleneck: a packet-level simulation of what their TCP senders do.
//
// Why a simulation, and what the WAN lab showed of people in step behind a
// shallow queue (packet captures, 2026-11-24): docs/model.md, "People
// sharing a queue". The cycle model in congestion.ts assumes senders whose
// windows fill the path; a person held by their copy pipeline sends a reply
// as one unpaced burst, and when bursts meet a shallow queue what happens
// turns on the queue's order, not on averages.
//
// The rules, as Linux 6.x follows them (the server here is smbd on Linux;
// Windows' CUBIC follows RFC 9438 as well):
//  - The bottleneck is the lab's forwarder and a router's FIFO alike: a
//    packet is serialised at the line rate after those ahead of it, then
//    takes the one-way delay; one that would put the bytes waiting past the
//    buffer is dropped (native/wanem/wanem.c).
//  - The receiver ACKs every second segment (RFC 9293 section 3.8.6.3), at
//    once on a segment out of order or filling a hole (RFC 5681 section 4.2),
//    after 40 ms otherwise (Linux's TCP_DELACK_MIN); its next request carries
//    the ACK of the reply it completes. It reports what it holds beyond a
//    hole (SACK, RFC 2018), and a duplicate (D-SACK, RFC 2883).
//  - Loss detection and recovery as Linux's (RACK, the tail loss probe, the
//    retransmission timeout): src/model/queue-sim/loss-recovery.ts.
//  - CUBIC or Reno, HyStart and window validation as Linux's:
//    src/model/queue-sim/congestion-control.ts.
// Named simplifications: during recovery the window is set to the new
// threshold at once (Linux's proportional rate reduction gets there over a
// round trip); HyStart's ACK-train test is left out (a reply's train is far
// shorter than the half RTT it looks for); the reverse path (requests,
// ACKs) never queues. The ends' own time per request was measured in the
// same captures (HOST_TURNAROUND): the client answers replies one at a time
// in the order they came, as one process driving everyone does.

import type { SharedQueueInput, SharedQueueResult } from './queue-sim/input.js';
import { validateSharedQueueInput } from './queue-sim/input.js';
import { QueueRun } from './queue-run.js';

export { simulatedTimes } from './queue-run.js';

/** Runs the people's copies over the shared bottleneck (see the top of this file). Deterministic for a seed. */
export function simulateSharedQueue(input: SharedQueueInput): SharedQueueResult {
  validateSharedQueueInput(input);
  return new QueueRun(input).run();
}
