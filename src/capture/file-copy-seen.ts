// One file's copy as a capture shows it: what its client read or wrote, the
// requests it issued and how many were out over time. Made by the exchanges of
// a plain session (smb-exchanges.ts) and of a sealed one (sealed-exchanges.ts).

export interface FileCopySeen {
  readonly op: 'read' | 'write';
  readonly bytes: number;
  readonly requests: number;
  /** The request size the client used most (by bytes moved), and its largest. */
  readonly requestBytes: number;
  readonly largestRequestBytes: number;
  /** From its first data request's first byte to its last answer's last byte. */
  readonly firstSeconds: number;
  readonly lastSeconds: number;
  /** Data requests outstanding, averaged over that time, and at most; the same in bytes. */
  readonly meanInFlight: number;
  readonly maxInFlight: number;
  readonly meanBytesInFlight: number;
  /**
   * The share of that time with none of its data requests out: the client's own pace (its CPU, its disk, the
   * program), which no layer between it and the server sets (impacket sealing in Python: 90% of a write).
   * Absent where encryption hides it (requests of a copy sealed several at a time).
   */
  readonly idleFraction?: number;
  /** Request frames other than its reads and writes that named it: its open, queries, sets, close. */
  readonly metadataRoundTrips: number;
  /** Whether the capture saw it opened and closed. */
  readonly opened: boolean;
  readonly closed: boolean;
  /** Its data requests the capture saw no answer to (it ended, or lost the framing, before them). */
  readonly unanswered: number;
  /**
   * What the client held while one of its data requests waited for credits
   * (fewer were free than the request cost), time-weighted median, and the
   * share of its time one waited: as Pipefill's own copies record them
   * (src/smb/credits.ts), so the model reads the server from them alike
   * (src/model/credits-seen.ts). A server may let the count stand higher for
   * a moment than the window that paces the copies (smbd with `smb2 max
   * credits = 16`: 24-32 held briefly). Absent where the capture missed the
   * session's start or nothing waited.
   */
  readonly heldWhileWaiting?: number;
  readonly waitingFraction?: number;
  /**
   * Read from an encrypted session's message sizes and order (sealed-exchanges.ts): its files, opens, metadata
   * and credits are hidden, so `opened`, `closed` and `metadataRoundTrips` say nothing.
   */
  readonly sealed?: true;
}
