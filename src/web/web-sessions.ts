// The web mode's sessions and launch codes: a launch code (printed once, in
// the address the person opens) is traded once for a session; a session
// lives while calls use it. Secrets are compared in constant time. Apart
// from the HTTP host (host.ts), which asks it only "is this a live session?"
// and "may this code be spent?".

import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A launch code unused this long is forgotten: the page is opened within seconds of printing it. */
export const LAUNCH_CODE_TTL_MS = 10 * 60 * 1000;
/** Sessions the host keeps at once; the oldest goes first (each page load makes one). */
const MAX_SESSIONS = 64;
/**
 * A session no call has used for this long ends: a page left open overnight
 * must open a new address, and a session someone else traded a code for
 * does not last for ever. A running assessment uses its session at its start.
 */
export const SESSION_IDLE_MS = 4 * 60 * 60 * 1000;
/** Spent launch codes remembered (to tell a second use from a wrong code), at most this many. */
const MAX_SPENT_CODES = 256;

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const newSecret = () => randomBytes(24).toString('base64url');

export class WebSessions {
  /** Each session and when a call last used it. */
  private readonly sessions = new Map<string, number>();
  private readonly launchCodes = new Map<string, number>();
  private readonly spentCodes: string[] = [];

  constructor(
    private readonly idleMs: number,
    private readonly clock: () => number,
  ) {}

  /** A new session (the oldest goes when there are too many). */
  add(): string {
    const session = newSecret();
    this.sessions.set(session, this.clock());
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value ?? '');
    return session;
  }

  newLaunchCode(): string {
    const code = newSecret();
    this.launchCodes.set(code, this.clock() + LAUNCH_CODE_TTL_MS);
    return code;
  }

  /** Spends a launch code: true once, for a code this host made and that has not expired. */
  spendLaunchCode(given: string): boolean {
    const now = this.clock();
    for (const [code, expires] of this.launchCodes) {
      if (expires < now) this.launchCodes.delete(code);
      else if (sameToken(given, code)) {
        this.launchCodes.delete(code);
        this.spentCodes.push(code);
        if (this.spentCodes.length > MAX_SPENT_CODES) this.spentCodes.shift();
        return true;
      }
    }
    return false;
  }

  wasSpent(given: string): boolean {
    return this.spentCodes.some((code) => sameToken(given, code));
  }

  /** A live session: used within the idle limit (and marked used now); an idle one ends here. */
  isLive(given: string): boolean {
    const now = this.clock();
    for (const [session, lastUsed] of this.sessions) {
      if (!sameToken(given, session)) continue;
      if (now - lastUsed > this.idleMs) {
        this.sessions.delete(session);
        return false;
      }
      this.sessions.set(session, now);
      return true;
    }
    return false;
  }
}
