// SMB2 credits (MS-SMB2 3.2.4.1.5, 3.2.5.1.4): the server grants credits in
// every response; each request spends CreditCharge of them and as many
// consecutive message ids. A client that sends beyond its grant is
// disconnected (Samba does so at once). node-smb2 neither counts grants nor
// advances message ids by the charge, so this window does both, and never
// hands out an id the server has not granted.

import type { CreditsObserved } from '../model/credits-seen.js';

export class CreditStarvationError extends Error {
  override readonly name = 'CreditStarvationError';
}

/** A wait for credits that its caller ended (`cancelled`) or that outlasted the caller's deadline (`timeout`). */
export class CreditWaitEnded extends Error {
  override readonly name = 'CreditWaitEnded';
  constructor(readonly reason: 'cancelled' | 'timeout') {
    super(reason === 'cancelled' ? 'The wait for SMB2 credits was cancelled.' : 'The server granted no credits in time.');
  }
}

/** How long a caller waits for credits at most: until `signal` aborts, or `timeoutMs` has passed. */
export interface CreditWaitLimit {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

interface Waiter {
  charge: number;
  resolve: (messageId: bigint) => void;
  reject: (error: unknown) => void;
}

export interface CreditStats {
  /** Largest number of credits the server had granted and the client not yet spent. */
  readonly maxAvailable: number;
  /** Largest number of credits spent on requests still awaiting a final response. */
  readonly maxInFlight: number;
  /** Credits granted in all. */
  readonly totalGranted: number;
  /** Credits spent in all. */
  readonly totalCharged: number;
  /**
   * Largest number of credits held at once: granted and unspent, plus spent
   * on requests awaiting their final reply: the credits the server let the
   * client use at once. Can exceed the server's configured maximum: smbd 4.17
   * with `smb2 max credits = 16` grants 16 in a reply while 8 more are still
   * spent on requests it has not answered (seen: 24 held, never dropped).
   */
  readonly maxHeld: number;
}

export interface CreditCheckpoint {
  readonly atMs: number;
  readonly waitedMsByHeld: ReadonlyMap<number, number>;
}

/** The time-weighted median of what was held while waiting, and the share of `activeMs` spent waiting; nothing where nothing waited. */
function waitsOf(waitedMsByHeld: ReadonlyMap<number, number>, activeMs: number): CreditWaits {
  const waitedMs = [...waitedMsByHeld.values()].reduce((sum, ms) => sum + ms, 0);
  if (!(waitedMs > 0 && activeMs > 0)) return {};
  let middle = 0;
  let seen = 0;
  for (const [held, ms] of [...waitedMsByHeld].sort((a, b) => a[0] - b[0])) {
    seen += ms;
    middle = held;
    if (seen >= waitedMs / 2) break;
  }
  return { heldWhileWaiting: middle, waitingFraction: Math.min(1, waitedMs / activeMs) };
}

/**
 * The credits held (granted and unspent plus in flight) while a request
 * waited for a grant, the middle of that time (a time-weighted median), and
 * the share of the time measured that something waited. This, not maxHeld,
 * is the window that held a copy back: smbd with `smb2 max credits = 16` let
 * a copy hold 32 for a moment in some runs and 16-24 for the rest (lab,
 * 100 Mb/s / 40 ms, 2026-11-25), and a model fed the moment's 32 saw no
 * credit limit in a copy that had one. Empty where nothing waited.
 */
export interface CreditWaits {
  readonly heldWhileWaiting?: number;
  readonly waitingFraction?: number;
}

/** Distinct held counts the wait histogram keeps: a server cannot grow it without bound by granting odd amounts. */
const MAX_HISTOGRAM_KEYS = 512;

export class CreditWindow {
  private available: number;
  private inFlight = 0;
  private nextMessageId = 0n;
  private readonly waiters: Waiter[] = [];
  private stats = { maxAvailable: 0, maxInFlight: 0, totalGranted: 0, totalCharged: 0, maxHeld: 0 };
  /** Milliseconds spent waiting, by the credits held meanwhile. */
  private readonly waitedMsByHeld = new Map<number, number>();
  private waitingSinceMs: number | undefined;

  /** A new connection may send one request (the NEGOTIATE) before any grant. `now` is the clock (milliseconds) waits are timed by. */
  constructor(
    initialCredits = 1,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.available = initialCredits;
    this.stats.maxAvailable = initialCredits;
    this.stats.maxHeld = initialCredits;
    this.stats.totalGranted = initialCredits;
  }

  get credits(): number {
    return this.available;
  }

  get creditsInFlight(): number {
    return this.inFlight;
  }

  get snapshot(): CreditStats {
    return { ...this.stats };
  }

  /** A mark to measure one stretch of the connection's life by (waitsSince): a copy on a session that other copies used before. */
  checkpoint(): CreditCheckpoint {
    return { atMs: this.now(), waitedMsByHeld: new Map(this.waitedMsByHeld) };
  }

  /** The credits held while requests waited, and the share of the time they waited, since `mark`. */
  waitsSince(mark: CreditCheckpoint): CreditWaits {
    const waited = new Map<number, number>();
    for (const [held, ms] of this.waitedMsByHeld) {
      const since = ms - (mark.waitedMsByHeld.get(held) ?? 0);
      if (since > 0) waited.set(held, since);
    }
    return waitsOf(waited, this.now() - mark.atMs);
  }

  /**
   * What a copy records of its credits (src/model/credits-seen.ts): the most
   * this connection has held, and, since `mark` (the copy's start), what it
   * held while requests waited and the share of the time they waited.
   */
  observedSince(mark?: CreditCheckpoint): CreditsObserved {
    const waits = mark ? this.waitsSince(mark) : {};
    return {
      creditsGrantedMax: this.stats.maxHeld,
      ...(waits.heldWhileWaiting !== undefined && waits.waitingFraction !== undefined
        ? { creditsHeldWhileWaiting: waits.heldWhileWaiting, creditWaitingFraction: waits.waitingFraction }
        : {}),
    };
  }

  /**
   * Spends `charge` credits and returns the first of `charge` message ids,
   * waiting (in order of asking) until the server has granted enough, or
   * until `limit` ends the wait (CreditWaitEnded; nothing is spent then).
   */
  acquire(charge: number, limit: CreditWaitLimit = {}): Promise<bigint> {
    if (!(Number.isInteger(charge) && charge >= 1)) throw new Error(`A credit charge must be a whole number >= 1, not ${charge}.`);
    if (limit.signal?.aborted) return Promise.reject(new CreditWaitEnded('cancelled'));
    if (this.waiters.length === 0 && this.available >= charge) return Promise.resolve(this.spend(charge));
    if (this.inFlight === 0 && this.waiters.length === 0) {
      // Nothing outstanding can bring a grant: waiting would never end.
      return Promise.reject(new CreditStarvationError(`The server left ${this.available} credits and nothing in flight; a request needs ${charge}.`));
    }
    if (this.waiters.length === 0) this.waitingSinceMs = this.now();
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        limit.signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        charge,
        resolve: (messageId) => {
          done();
          resolve(messageId);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const leave = (reason: CreditWaitEnded['reason']) => {
        const index = this.waiters.indexOf(waiter);
        if (index < 0) return;
        this.waiters.splice(index, 1);
        waiter.reject(new CreditWaitEnded(reason));
        // The one who left may have held the others back (they wait in order).
        if (index === 0) this.wake();
        if (this.waiters.length === 0) this.waitingSinceMs = undefined;
      };
      const onAbort = () => leave('cancelled');
      limit.signal?.addEventListener('abort', onAbort, { once: true });
      if (limit.timeoutMs !== undefined) timer = setTimeout(() => leave('timeout'), limit.timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Records a response: `granted` new credits, and (for a final response) the request's charge no longer in flight. */
  onResponse(granted: number, completedCharge: number): void {
    const now = this.now();
    // The wait so far was spent holding what was held before this response changed it.
    if (this.waitingSinceMs !== undefined) {
      const held = this.available + this.inFlight;
      if (this.waitedMsByHeld.has(held) || this.waitedMsByHeld.size < MAX_HISTOGRAM_KEYS)
        this.waitedMsByHeld.set(held, (this.waitedMsByHeld.get(held) ?? 0) + (now - this.waitingSinceMs));
      this.waitingSinceMs = now;
    }
    this.available += granted;
    this.stats.totalGranted += granted;
    this.inFlight -= completedCharge;
    if (this.inFlight < 0) throw new Error('More credits completed than were spent.');
    this.stats.maxAvailable = Math.max(this.stats.maxAvailable, this.available);
    this.stats.maxHeld = Math.max(this.stats.maxHeld, this.available + this.inFlight);
    this.wake();
    if (this.waiters.length === 0) this.waitingSinceMs = undefined;
  }

  /** Rejects everything still waiting, e.g. when the connection drops. */
  failWaiters(error: unknown): void {
    this.waitingSinceMs = undefined;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private wake(): void {
    while (this.waiters.length > 0) {
      const head = this.waiters[0];
      if (!head || head.charge > this.available) break;
      this.waiters.shift();
      head.resolve(this.spend(head.charge));
    }
    if (this.waiters.length > 0 && this.inFlight === 0) {
      this.failWaiters(
        new CreditStarvationError(
          `The server granted too few credits (${this.available}) for a request of ${this.waiters[0]?.charge}, with nothing left in flight.`,
        ),
      );
    }
  }

  private spend(charge: number): bigint {
    this.available -= charge;
    this.inFlight += charge;
    this.stats.totalCharged += charge;
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.inFlight);
    const messageId = this.nextMessageId;
    this.nextMessageId += BigInt(charge);
    return messageId;
  }
}
