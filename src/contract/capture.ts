// A packet capture of a real copy, analysed (issue 53): the contract's input
// (the capture's path on the services' machine, and the line's rate where the
// person knows it) and its output: each SMB connection's client and server as
// the capture shows them, each file it read or wrote with the requests the
// client really issued, and the model's time for it with the path, client
// and server as seen. What the capture could not show is said in `notes`.

import { z } from 'zod';
import { LIMIT_LAYERS } from '../model/in-flight.js';

export const CaptureInputSchema = z
  .object({
    /** The capture file (pcap or pcapng) on the machine the services run on. */
    path: z.string().min(1).max(4096),
    /** The line's rate (`100Mbit`, `1Gbit`): a capture cannot show it. */
    bandwidth: z.string().max(64).optional(),
  })
  .strict();
export type CaptureInput = z.input<typeof CaptureInputSchema>;

const EndpointSchema = z.object({ address: z.string().max(64), port: z.number().int().min(0).max(65_535) });

const SideSchema = z.object({
  mss: z.number().int().nonnegative().optional(),
  windowScale: z.number().int().min(0).max(14).optional(),
  maxWindowBytes: z.number().nonnegative(),
  zeroWindows: z.number().int().nonnegative(),
  /** Payload bytes it sent, and of them sent again. */
  bytes: z.number().nonnegative(),
  retransmittedBytes: z.number().nonnegative(),
  /** Bytes of its stream the capture did not hold, and of its SMB frames it could not place. */
  missedBytes: z.number().nonnegative(),
  unframedBytes: z.number().nonnegative(),
});

export const CapturedCopySchema = z.object({
  op: z.enum(['read', 'write']),
  bytes: z.number().nonnegative(),
  requests: z.number().int().nonnegative(),
  requestBytes: z.number().nonnegative(),
  largestRequestBytes: z.number().nonnegative(),
  /** Seconds from the capture's first packet: the first data request, and the last answer. */
  firstSeconds: z.number(),
  lastSeconds: z.number(),
  meanInFlight: z.number().nonnegative(),
  maxInFlight: z.number().int().nonnegative(),
  meanBytesInFlight: z.number().nonnegative(),
  /** The share of its time with none of its data requests out: the client's own pace. */
  idleFraction: z.number().min(0).max(1).optional(),
  metadataRoundTrips: z.number().int().nonnegative(),
  opened: z.boolean(),
  closed: z.boolean(),
  unanswered: z.number().int().nonnegative(),
  /** What the client held while one of its data requests waited for credits, and the share of its time one waited. */
  heldWhileWaiting: z.number().int().nonnegative().optional(),
  waitingFraction: z.number().min(0).max(1).optional(),
  /** Read from an encrypted session's message sizes and order: its files, opens, metadata and credits are hidden. */
  sealed: z.literal(true).optional(),
  /** The model's time for the same bytes with the path, client and server as seen; absent where the capture lacks the round trip. */
  model: z
    .object({
      expectedSeconds: z.number().nonnegative(),
      /** Of that, the client's own pace: the time it had nothing in flight, as seen. */
      clientIdleSeconds: z.number().nonnegative(),
      /** The copy's time against the model's, by the assessment's rule (src/model/assessment.ts compareWithModel). */
      verdict: z.enum(['as-expected', 'slower-than-expected', 'faster-than-expected']),
      limitedBy: z.enum(LIMIT_LAYERS),
      /** Whether the line's rate was given (else the model took it as no limit). */
      lineGiven: z.boolean(),
    })
    .optional(),
});
export type CapturedCopy = z.output<typeof CapturedCopySchema>;

export const CapturedConnectionSchema = z.object({
  client: EndpointSchema,
  server: EndpointSchema,
  handshakeRttMs: z.number().nonnegative().optional(),
  sawOpen: z.boolean(),
  sawEnd: z.boolean(),
  /** The dialect NEGOTIATE settled on, as MS-SMB2 writes it (`3.1.1`). */
  dialect: z.string().max(16).optional(),
  messages: z.object({
    requests: z.number().int().nonnegative(),
    responses: z.number().int().nonnegative(),
    signed: z.number().int().nonnegative(),
    sealed: z.number().int().nonnegative(),
    compressed: z.number().int().nonnegative(),
    smb1: z.number().int().nonnegative(),
  }),
  credits: z.object({
    windowMax: z.number().int().nonnegative().optional(),
    /** The credits the model takes the server to allow, read as from Pipefill's own copies (src/model/credits-seen.ts). */
    seen: z.number().int().nonnegative().optional(),
    inUseMax: z.number().int().nonnegative(),
    requestedMax: z.number().int().nonnegative(),
    grantedMax: z.number().int().nonnegative(),
  }),
  /**
   * The server's time per command: from the request's last byte to the answer's first, less the round trip between
   * the capture's point and the server; `pathIncluded` where the capture missed the handshake and could not take it off.
   */
  commands: z.array(
    z.object({
      command: z.string().max(32),
      count: z.number().int().nonnegative(),
      medianMs: z.number(),
      p95Ms: z.number(),
      pathIncluded: z.literal(true).optional(),
    }),
  ),
  tcp: z.object({ client: SideSchema, server: SideSchema }),
  copies: z.array(CapturedCopySchema),
  unmatchedResponses: z.number().int().nonnegative(),
  unansweredRequests: z.number().int().nonnegative(),
});
export type CapturedConnection = z.output<typeof CapturedConnectionSchema>;

export const CaptureAnalysisSchema = z.object({
  file: z.object({
    bytes: z.number().nonnegative(),
    packets: z.number().int().nonnegative(),
    otherPackets: z.number().int().nonnegative(),
    spanSeconds: z.number().nonnegative(),
  }),
  connections: z.array(CapturedConnectionSchema),
  otherConnections: z.number().int().nonnegative(),
  /** What the capture could not show, each in a sentence. */
  notes: z.array(z.string().max(400)),
});
export type CaptureAnalysis = z.output<typeof CaptureAnalysisSchema>;
