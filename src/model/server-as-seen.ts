// The server as the copies found it: the profile assumed or recognised,
// corrected by what the copies saw on the wire (the credits it granted, the
// window it advertised, the signing it demanded). Apart from the diagnosis so
// that a prediction of one copy (src/model/predict.ts) can use it too.

import type { ClientProfile, Op } from './client-profiles.js';
import type { CryptoRates } from './crypto-cost.js';
import type { ServerProfile } from './server-profiles.js';
import type { CongestionControl } from './congestion.js';
import { idleRestartRtts } from './congestion.js';
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
  /**
   * The server's own rates there, where its stack showed it slower than this
   * machine's rates (server-crypto-here.ts serverRatesHere); absent: those
   * rates.
   */
  readonly serverCryptoOnThisMachine?: CryptoRates;
  /**
   * The server's reads met the path's loss and still ran at a rate-based sender's pace, far past what a loss-based
   * one allows (readsOutranLoss): a server sending with BBR, or loss only on the way to the server. Either way its
   * reads are expected as BBR sends them.
   */
  readonly serverSender?: 'rate-based';
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
  const sending = withServerCongestion(server, seen.serverSender === 'rate-based' ? 'bbr' : undefined).tcp;
  const rates = seen.serverCryptoOnThisMachine ?? seen.cryptoOnThisMachine;
  return {
    ...server,
    smb2: credits === undefined ? server.smb2 : { ...server.smb2, creditsMax: credits, creditsInitial: Math.min(server.smb2.creditsInitial, credits) },
    tcp: windowHeld ? { ...sending, receiveWindowBytes: seen.peerWindowBytes ?? server.tcp.receiveWindowBytes } : sending,
    crypto: rates ? { ...server.crypto, rates } : server.crypto,
    security: {
      ...server.security,
      signing: signingAsSeen(server.security.signing, seen.signingChoice),
      signingRequired: server.security.signingRequired || seen.signingRequired === true,
      encryptionRequired: server.security.encryptionRequired || seen.encryptionRequired === true,
    },
  };
}

/**
 * The server sending with `congestion`, where its reads showed one: its
 * restart from idle goes with it (a rate-based sender loses part of a round
 * trip restarting a burst: congestion.ts idleRestartRtts).
 */
export function withServerCongestion(server: ServerProfile, congestion: CongestionControl | undefined): ServerProfile {
  if (congestion === undefined || congestion === server.tcp.congestion) return server;
  return { ...server, tcp: { ...server.tcp, congestion, idleRestartRtts: idleRestartRtts(congestion) } };
}

/** A read's time under a loss-based sender at most this share of the model's: no loss-based sender explains it. */
const OUTRAN_LOSS_BASED = 0.5;

/**
 * The losses a read must have met (its packets times the path's loss rate) for its pace to say how its sender
 * answers them: fewer leave a loss-based sender much of slow start's head start. The lab's CUBIC Samba read 1 MiB
 * through 1.4% loss (about 10 losses) in 0.62 s, and the same read in the run before took 1.11 s (2026-11-28).
 */
const LOSSES_TO_TELL = 20;

/**
 * Whether a read that met the path's loss (segments arrived out of order:
 * something before them was lost) ran at a pace a loss-based sender cannot
 * keep through it, and that a rate-based one (BBR) explains better: at most
 * half the model's time with the server's congestion control as assumed, and
 * nearer the time with BBR, over enough packets to have met LOSSES_TO_TELL.
 * A Linux server may run BBR (a sysctl away), which paces at the delivery
 * rate it measures and does not answer random loss: the lab's BBR Samba read
 * an 8 MiB file through 1% loss in 1.7-1.9 s where CUBIC's model gave 18.5 s,
 * and the verdict called reads ten times faster than the path allows
 * (2026-11-28). A read that met no loss shows nothing of how its sender
 * answers one.
 */
export function readsOutranLoss(read: {
  readonly measuredSeconds: number;
  readonly outOfOrderPackets: number | undefined;
  /** The packets the read moved, times the path's loss rate. */
  readonly lossesMet: number;
  /** The model's time for the read with the server's congestion control as assumed, and with BBR. */
  readonly lossBasedSeconds: number;
  readonly rateBasedSeconds: number;
}): boolean {
  const { measuredSeconds: measured, lossBasedSeconds: lossBased, rateBasedSeconds: rateBased } = read;
  if (!((read.outOfOrderPackets ?? 0) > 0) || !(read.lossesMet >= LOSSES_TO_TELL) || !(measured > 0 && lossBased > 0 && rateBased > 0)) return false;
  return measured <= OUTRAN_LOSS_BASED * lossBased && Math.abs(Math.log(measured / rateBased)) < Math.abs(Math.log(measured / lossBased));
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
