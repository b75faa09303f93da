// The silence watchdog of a connection: with requests outstanding, a server
// that makes no progress for long enough is dead. Progress is a final reply,
// or enough bytes of one; what is allowed grows with the request bytes sent
// since the server last spoke, at the best rate the connection has shown.
// Pure state and arithmetic: the connection feeds it and asks it.

/**
 * What counts as the server making progress: a final reply, or this many
 * bytes of a reply arriving. A single byte does not: a server trickling a
 * byte every half second would otherwise hold a request for ever.
 */
export const PROGRESS_BYTES = 16 * 1024;

/**
 * A connection with requests pending and no progress (see PROGRESS_BYTES)
 * for this long is dead. Silence, not a per-request deadline: on a slow link
 * a deep pipeline's last request rightly waits a minute behind the others
 * (32 MiB at 5 Mb/s), while the replies ahead of it keep arriving. 9 s
 * outlasts a 5 s blackhole (Linux retransmits at 0.2, 0.6, 1.4, 3.0 and
 * 6.2 s, so the first retransmission after the link returns is ~6.2 s in,
 * and 16 KiB arrive within four round trips of slow start after it).
 */
export const SILENCE_TIMEOUT_MS = 9_000;
/**
 * A server says nothing about a write until the whole request has arrived,
 * so the silence allowed grows with the request bytes sent since it last
 * spoke, at the path's rate: an eighth of the best rate this connection has
 * shown (room for the rate to fall that far, a window-limited copy whose
 * round trip grows ninefold), and never above this slowest link rate (1 Mb/s),
 * where a 4 MiB write is 33 s of rightful silence. On a fast path a stalled
 * write pipeline is therefore called dead after about the base, not minutes.
 */
export const SLOWEST_LINK_BYTES_PER_MS = 1e6 / 8 / 1000;
const RATE_MARGIN = 8;
/** The span over which the connection's rate is measured. */
const RATE_WINDOW_MS = 500;

/** How long a server may stay silent after `bytesSent` request bytes went out since it last spoke, at `bestBytesPerMs` (pure). */
export function silenceAllowanceMs(baseMs: number, bytesSent: number, bestBytesPerMs = 0): number {
  return baseMs + bytesSent / Math.max(SLOWEST_LINK_BYTES_PER_MS, bestBytesPerMs / RATE_MARGIN);
}
export const WATCHDOG_INTERVAL_MS = 250;

/** What the watchdog found when the silence ran out. */
export interface Overdue {
  readonly silentMs: number;
  /** Bytes that arrived since the last progress without making any (a trickle). */
  readonly trickledBytes: number;
}

export class SilenceWatchdog {
  private lastHeardAt: number;
  /** Request bytes written since the server last made progress. */
  private bytesSentSinceHeard = 0;
  /** Bytes received since the server last made progress. */
  private receivedSinceProgress = 0;
  /**
   * The state before bytes of a frame not yet whole counted as progress: put
   * back if the frame turns out to answer nothing (unsolicited messages are
   * not progress, however large).
   */
  private beforeByteProgress: { readonly lastHeardAt: number; readonly bytesSentSinceHeard: number } | undefined;
  /** Request and reply bytes of finished requests in the current rate window, and the best rate seen (bytes per ms). */
  private rateWindow: { startedAt: number; bytes: number };
  private bestBytesPerMs = 0;

  constructor(
    private readonly baseMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastHeardAt = now();
    this.rateWindow = { startedAt: this.lastHeardAt, bytes: 0 };
  }

  /** How often the connection should ask (a quarter of the base at least). */
  get intervalMs(): number {
    return Math.min(WATCHDOG_INTERVAL_MS, this.baseMs / 4);
  }

  /** Bytes received since the server last made progress. */
  get bytesSinceProgress(): number {
    return this.receivedSinceProgress;
  }

  sent(bytes: number): void {
    this.bytesSentSinceHeard += bytes;
  }

  received(bytes: number): void {
    this.receivedSinceProgress += bytes;
  }

  /** The server answered (or the first request went out: silence counts from there). */
  progress(): void {
    this.lastHeardAt = this.now();
    this.bytesSentSinceHeard = 0;
    this.receivedSinceProgress = 0;
    this.beforeByteProgress = undefined;
  }

  /** Part of a large frame arrived: progress for now, taken back (takeBack) if the frame answers nothing. */
  partialProgress(): void {
    this.beforeByteProgress ??= { lastHeardAt: this.lastHeardAt, bytesSentSinceHeard: this.bytesSentSinceHeard };
    this.lastHeardAt = this.now();
    this.bytesSentSinceHeard = 0;
    this.receivedSinceProgress = 0;
  }

  /** A frame that answered no request was no progress, however many bytes it took. */
  takeBack(): void {
    if (!this.beforeByteProgress) return;
    this.lastHeardAt = this.beforeByteProgress.lastHeardAt;
    this.bytesSentSinceHeard = this.beforeByteProgress.bytesSentSinceHeard;
    this.beforeByteProgress = undefined;
  }

  /** A request finished: its bytes count toward the connection's rate. */
  delivered(bytes: number): void {
    const now = this.now();
    this.rateWindow.bytes += bytes;
    const elapsed = now - this.rateWindow.startedAt;
    if (elapsed < RATE_WINDOW_MS) return;
    this.bestBytesPerMs = Math.max(this.bestBytesPerMs, this.rateWindow.bytes / elapsed);
    this.rateWindow = { startedAt: now, bytes: 0 };
  }

  /** The silence, where it has run past what is allowed; undefined while in time. */
  overdue(): Overdue | undefined {
    const allowedMs = silenceAllowanceMs(this.baseMs, this.bytesSentSinceHeard, this.bestBytesPerMs);
    const silentMs = this.now() - this.lastHeardAt;
    return silentMs < allowedMs ? undefined : { silentMs, trickledBytes: this.receivedSinceProgress };
  }
}
