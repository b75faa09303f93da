// The words on the screens that need a line of explanation (issue 38): each
// term's plain label and one sentence a helpdesk person can read, shown on
// request (a button, reachable by keyboard) in the app, and used in the same
// words by the reports. Pure.

import type { LimitLayer } from '../model/in-flight.js';
import { clientShortLabel } from './test-labels.js';
import type { ReadinessTarget } from './compare.js';
import { formatDuration } from '../model/units.js';

/** One sentence per layer that can limit a copy: what it is and what it means here. */
export const LAYER_EXPLANATIONS: Readonly<Record<LimitLayer | 'unexplained', string>> = {
  bandwidth:
    'The line itself: every layer keeps enough data in flight to fill it (the bandwidth-delay product, BDP, is how much a line holds at once: its rate times its round trip). Only a faster line helps.',
  'copy-pipeline': 'How many reads or writes the copy program keeps going at once, and how big each is: Explorer, robocopy and cp each have their own.',
  credits:
    'SMB credits: how many requests the server lets a client have outstanding at once. Too few on a long path and the client waits for answers instead of sending.',
  'client-tcp-window': "How much data this computer's TCP lets be in flight before it must hear back: too small a window cannot fill a long, fast line.",
  'server-tcp-window': "How much data the server's TCP lets be in flight before it must hear back: too small a window cannot fill a long, fast line.",
  'packet-loss': 'Packets lost on the way: TCP slows down after each loss and takes time to speed up again.',
  'bottleneck-queue': "The queue at the line's narrowest point: a short one drops packets as a copy speeds up, and TCP slows down.",
  signing: 'Signing every message takes processor time on both computers; on a fast path that time, not the network, sets the pace.',
  encryption: 'Encrypting every message takes processor time on both computers; on a fast path that time, not the network, sets the pace.',
  'round-trips':
    'Each file needs several request-and-answer exchanges (open, query, close) before and after its data: with many small files these waits add up.',
  'slow-start': 'TCP starts each connection slowly and speeds up over a few round trips: a short copy ends before it reaches full speed.',
  hosts: 'The two computers themselves (processor, memory, disk) move data slower than the network could: a faster path would not help.',
  unexplained:
    "Slower than every layer Pipefill models would allow: look at what it cannot see, such as the server's disk, antivirus scanning, or other traffic on the line.",
};

/** Terms of the capacity and readiness views. */
export const TERMS = {
  knee: {
    label: 'Knee',
    text: 'The number of people after which one more adds little: beyond it, everyone shares what the line and the server can give.',
  },
  fairness: {
    label: 'Fairness',
    text: "How evenly the people shared the line, from 0 to 1 (Jain's index): 1 is everyone getting the same; lower means some got much less.",
  },
  echo: {
    label: 'Round trip (median / slowest 5%)',
    text: 'How long an SMB2 ECHO, the smallest request there is, took to come back while the others copied: what a person opening a folder feels. p50 is the median, p95 the slowest one in twenty.',
  },
  projected: {
    label: 'Projected',
    text: "The copy was stopped part-way to keep the run short: once its rate had settled, or, for a folder of small files, once it had moved its first files; its time for the whole workload is projected from what it measured (the run's --full moves every byte).",
  },
  rate: {
    label: 'Rate',
    text: "A large file's rate once under way, where its test copy ran long enough to show one (its opening round trips and TCP's ramp left out): what a copy of it holds for most of its time, and the rate the answer above quotes. Otherwise, and for a folder of small files, the rate over the whole copy.",
  },
  bdp: {
    label: 'Bandwidth-delay product (BDP)',
    text: 'How much data the line holds at once: its rate times its round trip. To fill the line, every layer must let at least this much be in flight.',
  },
} as const;

/** A readiness target ("dirset<5min@win10-smb3") in words: "the 1 GB folder of small files, both ways, within 5 min with Windows 10/11". */
export function targetText(target: ReadinessTarget): string {
  const what = target.workload === 'tr3869-dirset' ? 'the 1 GB folder of 300 small files' : 'a 100 MB file';
  const ways = target.ops.length === 2 ? 'both ways' : target.ops[0] === 'read' ? 'read' : 'written';
  return `${what}, ${ways}, within ${formatDuration(target.seconds * 1000)} with ${clientShortLabel(target.client)}`;
}
