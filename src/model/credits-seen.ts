// The SMB2 credits a server let a copy use, as the copies showed them. The
// largest number held at any moment overstates the window: smbd with
// `smb2 max credits = 16` granted 16 in a reply while 8-16 more were still
// spent on unanswered requests, so a copy held 24-32 for a moment and 16-24
// while it waited (lab, 100 Mb/s / 40 ms, 2026-11-25). Where a copy spent a
// real share of its time waiting for a grant, what it held meanwhile is the
// window that paced it.

/** What one copy recorded of its credits (the report's `negotiated` fields). */
export interface CreditsObserved {
  readonly creditsGrantedMax: number;
  readonly creditsHeldWhileWaiting?: number | undefined;
  readonly creditWaitingFraction?: number | undefined;
}

/** A copy that waited for credits this share of its time or more was held back by them (as the server's window rule: src/model/diagnosis.ts). */
export const CREDIT_WAITING_LIMITED = 0.25;

const heldBack = (copy: CreditsObserved): boolean => (copy.creditWaitingFraction ?? 0) >= CREDIT_WAITING_LIMITED && (copy.creditsHeldWhileWaiting ?? 0) > 0;

/**
 * The credits the server allowed, from one or more copies: where any copy
 * was held back by credits, the most any of those held while waiting (the
 * deepest copy speaks for the server); otherwise the most any copy held.
 * Undefined where no copy recorded a grant.
 */
export function creditsSeen(copies: readonly CreditsObserved[]): number | undefined {
  const waited = copies.filter(heldBack).map((copy) => copy.creditsHeldWhileWaiting ?? 0);
  if (waited.length > 0) return Math.max(...waited);
  const held = copies.map((copy) => copy.creditsGrantedMax).filter((credits) => credits > 0);
  return held.length > 0 ? Math.max(...held) : undefined;
}
