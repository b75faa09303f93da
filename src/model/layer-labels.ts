// The model's layers as a person reads them: the names every view, report
// and verdict uses for what limits a copy.

import type { LimitLayer } from './in-flight.js';

export const LAYER_LABELS: Readonly<Record<LimitLayer | 'unexplained', string>> = {
  bandwidth: 'Bandwidth (BDP)',
  'copy-pipeline': 'Copy pipeline',
  credits: 'SMB credits',
  'client-tcp-window': 'Client TCP window',
  'server-tcp-window': 'Server TCP window',
  'packet-loss': 'Packet loss',
  'bottleneck-queue': 'Bottleneck queue',
  signing: 'SMB signing',
  encryption: 'SMB encryption',
  'round-trips': 'Round trips',
  'slow-start': 'Slow start',
  hosts: 'The hosts (CPU, memory, storage)',
  unexplained: 'Outside the model',
};
