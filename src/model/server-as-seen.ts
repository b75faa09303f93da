// The server as the copies found it: the profile assumed or recognised,
// corrected by what the copies saw on the wire (the credits it granted, the
// window it advertised, the signing it demanded). Apart from the diagnosis so
// that a prediction of one copy (src/model/predict.ts) can use it too.

import type { ClientProfile, Op } from './client-profiles.js';
import type { CryptoRates } from './crypto-cost.js';
import type { ServerProfile } from './server-profiles.js';
import type { SigningAlgorithm } from './smb-security.js';

/** What a copy revealed about the server and the path. */
export interface Observations {
  /** The SMB2 credits the server let the client use at once (src/model/credits-seen.ts). */
  readonly creditsGranted?: number;
  /** The receive window the server last advertised, and the share of sending time that waited on it. */
  readonly peerWindowBytes?: number;
  readonly peerWindowLimitedFraction?: number;
  readonly retransmittedFraction?: number;
  /** The share of the copy's time it had a request ready and no credit to send it with (src/model/credits-seen.ts). */
  readonly creditWaitingFraction?: number;
  /**
   * An SMB 3.1.1 copy's signing: the algorithm the server chose, and those the client listed ahead of it, which the
   * server therefore does not offer (the client lists its preference, MS-SMB2 2.2.3.1.7, and the server takes the
   * first it supports: src/model/negotiation.ts).
   */
  readonly signingChoice?: { readonly chosen: SigningAlgorithm; readonly passedOver: readonly SigningAlgorithm[] };
  /** The server insisted on signing or encryption (the copies said who required it). */
  readonly signingRequired?: boolean;
  readonly encryptionRequired?: boolean;
  /**
   * The share was on this machine: its server signs and seals at the rates
   * measured here, and so does the person's client, which is this machine
   * (the diagnosis weighs both ends so: src/model/diagnosis.ts serverOnThisMachine).
   */
  readonly cryptoOnThisMachine?: CryptoRates;
}

/** Sends waited on the server's window this much of the time or more: the window held the copy back. */
const WINDOW_LIMITED = 0.25;

/** Whether writes waited on the window the server advertised a real share of the time: that window held them. */
export function windowHeldWrites(seen: Pick<Observations, 'peerWindowBytes' | 'peerWindowLimitedFraction'>): boolean {
  return seen.peerWindowBytes !== undefined && (seen.peerWindowLimitedFraction ?? 0) >= WINDOW_LIMITED;
}

/** The server as the copy found it: the assumed profile, corrected by what was observed. */
export function serverAsSeen(server: ServerProfile, op: Op, seen: Observations): ServerProfile {
  const credits = seen.creditsGranted !== undefined && seen.creditsGranted > 0 ? seen.creditsGranted : undefined;
  const windowHeld = op === 'write' && windowHeldWrites(seen);
  return {
    ...server,
    smb2: credits === undefined ? server.smb2 : { ...server.smb2, creditsMax: credits, creditsInitial: Math.min(server.smb2.creditsInitial, credits) },
    tcp: windowHeld ? { ...server.tcp, receiveWindowBytes: seen.peerWindowBytes ?? server.tcp.receiveWindowBytes } : server.tcp,
    crypto: seen.cryptoOnThisMachine ? { ...server.crypto, rates: seen.cryptoOnThisMachine } : server.crypto,
    security: {
      ...server.security,
      signing: signingAsSeen(server.security.signing, seen.signingChoice),
      signingRequired: server.security.signingRequired || seen.signingRequired === true,
      encryptionRequired: server.security.encryptionRequired || seen.encryptionRequired === true,
    },
  };
}

/** The person's client as the copies found it: on the machine that measured its crypto, at those rates. */
export function clientAsSeen(client: ClientProfile, seen: Pick<Observations, 'cryptoOnThisMachine'>): ClientProfile {
  return seen.cryptoOnThisMachine ? { ...client, crypto: { ...client.crypto, rates: seen.cryptoOnThisMachine } } : client;
}

/** The server's SMB 3.1.1 signing algorithms as a copy's choice showed them: those passed over dropped, the chosen one kept. */
function signingAsSeen(offered: readonly SigningAlgorithm[], choice: Observations['signingChoice']): readonly SigningAlgorithm[] {
  if (!choice || choice.passedOver.length === 0) return offered;
  const kept = offered.filter((algorithm) => !choice.passedOver.includes(algorithm));
  return kept.includes(choice.chosen) ? kept : [choice.chosen, ...kept];
}
