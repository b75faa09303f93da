// Recommendations as the contract carries them: a path (a report, or a
// bandwidth and RTT), a client and a server in; settings with the model's
// time before and after out.

import { z } from 'zod';
import type { RecommendInput, RecommendResult as RecommendResultOf } from '../advice/recommend.js';
import { recommend } from '../advice/recommend.js';
import type { Observations } from '../model/server-as-seen.js';
import { signingChoiceOf } from './copy-test.js';
import type { ClientProfileId } from '../model/client-profiles.js';
import { CLIENT_PROFILE_IDS, DEFAULT_CLIENT } from '../model/client-profiles.js';
import { PipefillInputError } from '../model/errors.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';
import type { ProtectionRequest } from '../model/negotiation.js';
import { PROTECTION_REQUESTS } from '../model/negotiation.js';
import { MAX_CHANNELS } from '../model/predict.js';
import { creditsSeen } from '../model/credits-seen.js';
import { serverRatesHere } from '../model/server-crypto-here.js';
import { LinkFieldsSchema, linkFromFields, namesWholeLink } from './link-fields.js';
import type { Report } from './report.js';
import type { RecommendResult } from './recommendation.js';
import { KnobValueSchema } from './recommendation.js';
import { modelLinkOf, ReportSchema } from './report.js';

export type { RecommendationOut, RecommendResult } from './recommendation.js';
export { RecommendationSchema, RecommendResultSchema } from './recommendation.js';

export const RecommendApiInputSchema = z
  .object({
    report: ReportSchema.optional(),
    ...LinkFieldsSchema.shape,
    /** The client and the server; from a report, the assessed client and the server it found when not given. */
    client: z.enum(CLIENT_PROFILE_IDS).optional(),
    server: z.enum(SERVER_PROFILE_IDS).optional(),
    /** A Samba smb.conf to read the current values from (through testparm). */
    smbConf: z.string().optional(),
    /** Current values by knob id, where the caller knows them. */
    current: z.record(z.string(), KnobValueSchema).optional(),
    /** What protects the data, and the session's connections. */
    security: z.enum(PROTECTION_REQUESTS as [ProtectionRequest, ...ProtectionRequest[]]).optional(),
    channels: z.number().int().min(1).max(MAX_CHANNELS).optional(),
  })
  .strict();
export type RecommendApiInput = z.infer<typeof RecommendApiInputSchema>;

/**
 * What a report's copies revealed: the credits the server allowed (a copy
 * that asked for few shows nothing of the server's ceiling, so the deepest
 * one speaks for the server, and one that waited for grants shows what it
 * held meanwhile: src/model/credits-seen.ts; for one client's advice, that
 * client's own copies), and the server's window where writes waited on it.
 */
export function observationsFromReport(report: Report, client?: ClientProfileId): Observations {
  // For a client's recommendations, what the server granted that client: a server holding it to 16 credits may grant
  // Pipefill's deeper pipeline more, and the client's copies are what the advice is for.
  const own = client === undefined ? [] : report.copyTests.filter((test) => test.profile === client);
  const credits = creditsSeen((own.length > 0 ? own : report.copyTests).map((test) => test.negotiated));
  const held = report.copyTests
    .filter((test) => test.op === 'write' && test.tcp?.peerWindowBytes !== undefined)
    .sort((a, b) => (b.tcp?.peerWindowLimitedFraction ?? 0) - (a.tcp?.peerWindowLimitedFraction ?? 0))[0];
  return {
    ...(report.copyTests.some((test) => test.negotiated.signingRequiredBy === 'server') ? { signingRequired: true } : {}),
    ...(report.copyTests.some((test) => test.negotiated.encryptionRequiredBy === 'server') ? { encryptionRequired: true } : {}),
    ...(credits === undefined ? {} : { creditsGranted: credits }),
    // What the client's own copies (else any) showed of the server's SMB 3.1.1 signing algorithms.
    ...(own.length > 0 ? own : report.copyTests).map(signingChoiceOf).find((choice) => choice.signingChoice !== undefined),
    ...(held?.tcp?.peerWindowBytes !== undefined
      ? { peerWindowBytes: held.tcp.peerWindowBytes, peerWindowLimitedFraction: held.tcp.peerWindowLimitedFraction ?? 0 }
      : {}),
    // A share on this machine: both ends protect at the rates measured here, as the diagnosis weighed them.
    ...(report.crypto?.serverOnThisMachine
      ? {
          cryptoOnThisMachine: report.crypto.rates,
          // The server's stack as its protected calibration showed it, as the run's own model weighed it (run-phases.ts).
          serverCryptoOnThisMachine: serverRatesHere(report.crypto.rates, report.pathModel?.hostCosts),
        }
      : {}),
    // The server's sender, as the run's reads showed it (judge.ts serverSenderOfReads).
    ...(report.pathModel?.serverSender ? { serverSender: report.pathModel.serverSender } : {}),
  };
}

/**
 * The client a report was for: the one the person named (reports from before
 * that option: the newest generation tested other than Pipefill's own).
 */
export function assessedClient(report: Report): ClientProfileId {
  if (report.options.client) return report.options.client;
  const tested = report.options.profiles.filter((profile) => profile !== 'pipefill-max');
  return tested[tested.length - 1] ?? DEFAULT_CLIENT;
}

/** The recommendation for a parsed input; `current` already holds what the service read (smb.conf, sysctls). */
export function recommendFromInput(input: RecommendApiInput): RecommendResult {
  let link;
  if (input.report) {
    // The path's own loss where the run's writes read one (a layer like any other), else none.
    const path = modelLinkOf(input.report);
    link = { ...path, lossRate: path.lossRate ?? 0 };
  } else if (namesWholeLink(input)) {
    link = linkFromFields(input, { bandwidthBitsPerSecond: 0, rttMs: 0, lossRate: 0 });
  } else {
    throw new PipefillInputError(
      'A recommendation needs a path: an assessment report, or a bandwidth and an RTT.',
      'Give --report report.json, or --bandwidth 155mbit --rtt 75ms.',
    );
  }
  const client = input.client ?? (input.report ? assessedClient(input.report) : undefined);
  const server = input.server ?? input.report?.options.server;
  if (client === undefined || server === undefined) {
    throw new PipefillInputError(
      'A recommendation for a path with no report needs the client and the server.',
      'Give --client win11-24h2 --server samba (pipefill profiles lists them), or --report report.json.',
    );
  }
  // A report made as robocopy /MT:n copies says the copy tool's setting as it ran: its findings are for it.
  const threads = input.report?.options.threads;
  const current = threads === undefined ? input.current : { 'copy-tool.robocopy-mt': threads, ...input.current };
  const request: RecommendInput = {
    link,
    client,
    server,
    ...(current ? { current } : {}),
    ...(input.report
      ? { observations: observationsFromReport(input.report, client), workloads: [...new Set(input.report.copyTests.map((test) => test.workload))] }
      : {}),
    ...(input.security === undefined ? {} : { security: input.security }),
    ...(input.channels === undefined ? {} : { channels: input.channels }),
  };
  const result = recommend(request);
  const out = (list: RecommendResultOf['recommendations']) =>
    list.map(({ range, tests, ...rest }) => ({ ...rest, tests: [...tests], ...(range ? { range: [range[0], range[1]] as [number, number] } : {}) }));
  return {
    link: { bandwidthBitsPerSecond: link.bandwidthBitsPerSecond, rttMs: link.rttMs, lossRate: link.lossRate ?? 0 },
    client,
    server,
    recommendations: out(result.recommendations),
    protections: out(result.protections),
    combined: [...result.combined],
  };
}
