// The copies of one assessment, on sessions opened once: one SMB session per
// generation (each with its own offer and credit history, as each client
// would have), one scratch folder, one source on the share for every read and
// one local source for every write. Per copy, only the copy itself and, for a
// write, its read-back cross the link: a session, a scratch folder and a
// source per copy cost seconds of round trips on a long path (issue 15 found
// an assessment spending half its time on them).

import { createHash } from 'node:crypto';
import type { CopyTestResult } from '../contract/copy-test.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Link } from '../model/link.js';
import type { FileCopyAgainstModel } from '../model/scaled-projection.js';
import { modelScaledProjection } from '../model/scaled-projection.js';
import type { SharePath } from '../model/share-path.js';
import type { Workload } from '../model/workloads.js';
import { parseWorkload } from '../model/workloads.js';
import type { CopyBudgetOptions } from '../copy/copy-budget.js';
import { projectedCopy, timedCopy } from '../copy/copy-test.js';
import { cancelledError } from '../smb/errors.js';
import { LocalSource } from '../copy/local-source.js';
import { removeStaleScratch, ScratchFolder } from '../copy/scratch.js';
import { warmServerProcess } from '../copy/server-warm-up.js';
import type { SmbCredentials } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { SETTLE_RULE } from '../model/settle.js';

/** How long clean-up may take after a failure or cancel, so a cancel still ends promptly. */
const CLEANUP_TIMEOUT_MS = 5_000;

export interface CopyCallbacks {
  readonly onLive?: (live: { bytes: number; tMs: number; mbps: number; opsPerSecond: number }) => void;
  readonly onVerify?: (bytes: number) => void;
}

/** Files of a directory set written whole as its read source in a budgeted run: the first, and the one the reads begin next. */
const SOURCE_WHOLE_FILES = 2;

const kindOf = (workload: Workload) => (workload.kind === 'file' ? 'file' : 'dirset');

/** How readBackWrites names a copy whose read-back it ran. */
export const readBackKey = (profile: ClientProfileId, op: Op, workload: string) => `${profile} ${op} ${parseWorkload(workload).spec}`;

/** The credentials with signing required on top of whatever else they ask (the signing check's session). */
export const withSigningRequired = (credentials: SmbCredentials): SmbCredentials => ({
  ...credentials,
  security: { ...(credentials.security ?? {}), signing: 'required' },
});

export class AssessmentCopies {
  private readonly sources = new Map<string, LocalSource>();
  /** Workloads whose read source is on the share (written by Pipefill's own write copy). */
  private readonly onShare = new Set<string>();
  /** How many whole files each directory set's source holds, where its write stopped early. */
  private readonly sourceFiles = new Map<string, number>();
  private targets = 0;
  private closing: Promise<{ keptByRecycleBin?: string; left?: string }> | undefined;
  /** Each generation's file copies that ran (`profile op`): a quick run's folders are projected from them. */
  /** Each generation's file copy by `profile op`, with what it saw of the credits: a folder projected from it assumes the same. */
  private readonly fileCopies = new Map<string, Pick<CopyTestResult['negotiated'], 'creditsHeldWhileWaiting' | 'creditWaitingFraction'>>();
  /** Read-backs of writes copied with `readBackLater`, by `profile op workload`, for readBackWrites. */
  private readonly readBacks = new Map<string, (on?: SmbSession) => Promise<void>>();
  /** Copy roots made ahead of their copies (prepareFolders). */
  private readonly made = new Set<string>();
  /** Source writes whose every byte a later read copy read and checked: their read-back would repeat it. */
  private readonly verifiedByRead = new Set<string>();

  private constructor(
    private readonly share: SharePath,
    private readonly credentials: SmbCredentials,
    private readonly sessions: ReadonlyMap<ClientProfileId, SmbSession>,
    private readonly owner: SmbSession,
    private readonly scratch: ScratchFolder,
    private readonly seed: string,
    private readonly signal: AbortSignal | undefined,
    /** Pipefill's own session opened beside the others with signing required (the signing check's), or why it could not be. */
    private signed: { readonly session: SmbSession } | { readonly failure: unknown } | undefined,
  ) {}

  /**
   * Opens a session per generation (all at once: set-up is a few round trips
   * each and shares nothing with the others but the link, which it barely
   * uses) and makes this run's scratch folder (stale ones are swept on a connection of their own: see ScratchFolder.sweepOthersAside).
   * `signed`: one more session for Pipefill's own pipeline with signing
   * required, for the signing check at the end (its set-up then costs the
   * check nothing: six round trips, 0.45 s at 75 ms); a failure to open it is
   * kept for the check to report, not the run's.
   */
  static async open(
    share: SharePath,
    credentials: SmbCredentials,
    profiles: readonly ClientProfileId[],
    options: { readonly signal?: AbortSignal; readonly signed?: boolean } = {},
  ): Promise<AssessmentCopies> {
    const { signal } = options;
    const wanted = [...new Set<ClientProfileId>([...profiles, 'pipefill-max'])];
    const signedOpening = options.signed
      ? SmbSession.open(share, withSigningRequired(credentials), { offer: CLIENT_PROFILES['pipefill-max'].offer, ...(signal ? { signal } : {}) })
      : undefined;
    const [signedOutcome, ...opened] = await Promise.allSettled([
      signedOpening ?? Promise.resolve(undefined),
      ...wanted.map((profile) => SmbSession.open(share, credentials, { offer: CLIENT_PROFILES[profile].offer, ...(signal ? { signal } : {}) })),
    ]);
    const signedSession = signedOutcome?.status === 'fulfilled' ? signedOutcome.value : undefined;
    const signed =
      signedOpening === undefined
        ? undefined
        : signedSession
          ? { session: signedSession }
          : { failure: signedOutcome?.status === 'rejected' ? signedOutcome.reason : new Error('The signed session did not open.') };
    const failure = opened.find((outcome) => outcome.status === 'rejected');
    const sessions = new Map<ClientProfileId, SmbSession>();
    opened.forEach((outcome, index) => {
      const profile = wanted[index];
      if (outcome.status === 'fulfilled' && profile) sessions.set(profile, outcome.value);
    });
    const owner = sessions.get('pipefill-max');
    const endAll = () => Promise.all([...sessions.values(), ...(signedSession ? [signedSession] : [])].map((session) => session.end().catch(() => undefined)));
    if (failure || !owner) {
      await endAll();
      throw failure?.status === 'rejected' ? failure.reason : new Error('No session for pipefill-max.');
    }
    try {
      const scratch = await ScratchFolder.createChecked(owner, signal ? { signal } : {});
      // What dead runs left, swept on a connection of its own before anything is written (see sweepOthersAside).
      await scratch.sweepOthersAside(() => SmbSession.open(share, credentials, { ...(signal ? { signal } : {}) }), signal ? { signal } : {});
      const seed = createHash('sha256').update(scratch.name).digest('hex').slice(0, 16);
      return new AssessmentCopies(share, credentials, sessions, owner, scratch, seed, signal, signed);
    } catch (error) {
      await endAll();
      throw error;
    }
  }

  /**
   * Makes the folders the coming writes copy into, all at once on Pipefill's
   * own session: the read sources of `workloads` and `writes` target
   * folders, in the order copy numbers them. One round trip before the
   * copies instead of one before each (five on a quick run, 0.3 s at 75 ms).
   * A folder no copy reaches is removed with the rest of the scratch folder.
   */
  async prepareFolders(workloads: readonly string[], writes: number): Promise<void> {
    const roots = [
      ...workloads.map((spec) => this.sourceRoot(parseWorkload(spec))),
      ...Array.from({ length: writes }, (_, index) => this.scratch.path(`target-${this.targets + index + 1}`)),
    ].filter((root) => !this.made.has(root));
    const options = this.signal ? { signal: this.signal } : {};
    const outcomes = await Promise.allSettled(
      roots.map(async (root) => {
        await this.owner.makeDirectory(root, options);
        this.made.add(root);
      }),
    );
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Each session's server process brought to the state a person's long-lived
   * connection is in, one after another before any copy is timed, as the
   * hosts' calibration does its own (server-warm-up.ts). For a fast path only.
   */
  async warmServers(): Promise<void> {
    const signed = this.signed && 'session' in this.signed ? [this.signed.session] : [];
    const options = this.signal ? { signal: this.signal } : {};
    for (const [index, session] of [...this.sessions.values(), ...signed].entries())
      await warmServerProcess(session, this.scratch.path(`warm-up-${index + 1}.bin`), options);
  }

  /** The workload laid down locally once, for every write of it. */
  private async localSource(workload: Workload): Promise<LocalSource> {
    const existing = this.sources.get(workload.spec);
    if (existing) return existing;
    const created = await LocalSource.create(workload, this.seed, this.signal);
    this.sources.set(workload.spec, created);
    return created;
  }

  private sourceRoot(workload: Workload): string {
    return this.scratch.path(`source-${kindOf(workload)}`);
  }

  /**
   * One copy through the engine's one timed path. Pipefill's own write of a
   * workload is the read source of every generation: it runs first into the
   * shared source folder, all of a file and, in a budgeted run, the first
   * two files of a directory set whole (see budgetFor).
   */
  async copy(
    profile: ClientProfileId,
    op: Op,
    spec: string,
    options: { link?: Link; budget?: CopyBudgetOptions; readBackLater?: boolean; lanes?: number } & CopyCallbacks,
  ): Promise<CopyTestResult> {
    if (this.signal?.aborted) throw cancelledError();
    const session = this.sessions.get(profile);
    if (!session) throw new Error(`No session was opened for ${profile}.`);
    const workload = parseWorkload(spec);
    const writesSource = profile === 'pipefill-max' && op === 'write' && !this.onShare.has(workload.spec);
    if (op === 'read' && !this.onShare.has(workload.spec))
      throw new Error(`The read source of ${spec} is not on the share yet: Pipefill's own write of it comes first.`);
    let root: string;
    if (writesSource) {
      root = this.sourceRoot(workload);
    } else if (op === 'write') {
      root = this.scratch.path(`target-${++this.targets}`);
    } else {
      root = this.sourceRoot(workload);
    }
    if (op === 'write' && !this.made.delete(root)) await session.makeDirectory(root, this.signal ? { signal: this.signal } : {});
    const source = op === 'write' ? await this.localSource(workload) : undefined;
    const budget = this.budgetFor(op, workload, writesSource, options.budget);
    const result = await timedCopy(
      {
        session,
        workload,
        seed: this.seed,
        verify: true,
        ...(this.signal ? { signal: this.signal } : {}),
        ...(options.link ? { link: options.link } : {}),
        ...(source ? { source } : {}),
        ...(budget ? { budget } : {}),
        ...(options.lanes !== undefined && options.lanes > 1 ? { lanes: options.lanes } : {}),
        ...(options.onLive ? { onLive: options.onLive } : {}),
        ...(options.onVerify ? { onVerify: options.onVerify } : {}),
        ...(options.readBackLater
          ? { deferReadBack: (readBack: (on?: SmbSession) => Promise<void>) => this.readBacks.set(readBackKey(profile, op, workload.spec), readBack) }
          : {}),
      },
      profile,
      op,
      root,
    );
    if (writesSource) {
      this.onShare.add(workload.spec);
      // The whole files the source holds: the reads of it go as far.
      this.sourceFiles.set(workload.spec, result.projected ? result.projected.filesTouched : workload.files.length);
    }
    if (workload.kind === 'file') {
      const { creditsHeldWhileWaiting, creditWaitingFraction } = result.negotiated;
      this.fileCopies.set(`${profile} ${op}`, {
        ...(creditsHeldWhileWaiting === undefined ? {} : { creditsHeldWhileWaiting }),
        ...(creditWaitingFraction === undefined ? {} : { creditWaitingFraction }),
      });
    }
    // A read of a file's source that moved it whole checked each byte against the pattern, as the source
    // write's own read-back would: that read-back is dropped (a megabyte less on a quick run's link).
    const sourceKey = readBackKey('pipefill-max', 'write', workload.spec);
    if (
      op === 'read' &&
      workload.kind === 'file' &&
      result.verified &&
      !result.projected &&
      result.bytes === workload.totalBytes &&
      this.readBacks.delete(sourceKey)
    )
      this.verifiedByRead.add(sourceKey);
    return { ...result, workload: workload.spec };
  }

  /**
   * A copy's budget: none for the file's read source (every byte, the reads
   * need them all); whole files only, two of them, for a directory set's
   * source (the reads need their first file whole and the second begun); a
   * directory set's read no further than that source. assess() projects a
   * stopped directory set from the model, scaled by the files it moved.
   */
  private budgetFor(op: Op, workload: Workload, writesSource: boolean, budget: CopyBudgetOptions | undefined): CopyBudgetOptions | undefined {
    if (!budget || (writesSource && workload.kind === 'file')) return undefined;
    if (workload.kind === 'file') return budget;
    return {
      ...budget,
      ...(writesSource ? { wholeFiles: SOURCE_WHOLE_FILES, minSpanMs: SETTLE_RULE.minSpanMs } : {}),
      // A read goes no further than its source: the files it holds (on a fast path, those of the settle span).
      ...(op === 'read' ? { maxFiles: this.sourceFiles.get(workload.spec) ?? SOURCE_WHOLE_FILES } : {}),
    };
  }

  /**
   * Pipefill's own read of a workload's source on the session opened with
   * signing required (open's `signed`), ended after: the signing check's.
   * Once only; throws why that session could not be opened.
   */
  async readSigned(spec: string, options: { link?: Link; budget?: CopyBudgetOptions }): Promise<CopyTestResult> {
    const workload = parseWorkload(spec);
    if (!this.onShare.has(workload.spec)) throw new Error(`The read source of ${spec} is not on the share.`);
    const signed = this.signed;
    if (!signed) throw new Error('No signed session was opened for this run (or its read has run already).');
    this.signed = undefined;
    if ('failure' in signed) throw signed.failure;
    const { session } = signed;
    try {
      const result = await timedCopy(
        {
          session,
          workload,
          seed: this.seed,
          verify: true,
          ...(this.signal ? { signal: this.signal } : {}),
          ...(options.link ? { link: options.link } : {}),
          ...(options.budget ? { budget: options.budget } : {}),
        },
        'pipefill-max',
        'read',
        this.sourceRoot(workload),
      );
      return { ...result, workload: workload.spec };
    } finally {
      await session.end().catch(() => undefined);
    }
  }

  /**
   * A workload that no copy moves in this run (a quick assessment's directory
   * set): the model's time for it, scaled by the same generation's file copy
   * against the model (src/model/scaled-projection.ts). That copy must have run.
   */
  projectWithoutCopy(profile: ClientProfileId, op: Op, spec: string, modelSeconds: number, fileCopy: FileCopyAgainstModel, lanes?: number): CopyTestResult {
    const session = this.sessions.get(profile);
    const credits = this.fileCopies.get(`${profile} ${op}`);
    if (!session || !credits) throw new Error(`${spec} is projected from ${profile}'s file ${op}, which has not run.`);
    const workload = parseWorkload(spec);
    const projected = projectedCopy(session, profile, op, workload, modelSeconds, modelScaledProjection(modelSeconds, fileCopy));
    return {
      ...projected,
      // Scaled from the file copy, it waited for credits as that copy did: a quick run names the layer a default run does (issue 48).
      negotiated: { ...projected.negotiated, ...credits },
      workload: workload.spec,
      // Projected as the copy would have been made: in lanes, robocopy /MT:n.
      ...(lanes !== undefined && lanes > 1 ? { lanes } : {}),
    };
  }

  /**
   * Runs the read-backs of the writes copied with `readBackLater`, all at
   * once on Pipefill's own session, after the copies, so none shares the
   * link with a timed one. One connection, just warmed by the last copy: at
   * 52 Mb/s / 75 ms, four read-backs of 1 MiB side by side on their
   * generations' connections, each restarting from TCP's initial window
   * after its idle time, took 1.0-1.5 s (their slow starts overshooting the
   * queue together), where the model gives 0.8 s for one flow. Throws the first mismatch or
   * failure. Returns the copies it verified, as readBackKey names them,
   * with the source writes that a whole read verified already.
   */
  async readBackWrites(): Promise<ReadonlySet<string>> {
    const pending = [...this.readBacks.entries()];
    this.readBacks.clear();
    const outcomes = await Promise.allSettled(pending.map(([, readBack]) => readBack(this.owner)));
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const verified = new Set([...pending.map(([key]) => key), ...this.verifiedByRead]);
    this.verifiedByRead.clear();
    return verified;
  }

  /** Whether Pipefill's own write of this workload (the read source) has run. */
  hasSource(spec: string): boolean {
    return this.onShare.has(parseWorkload(spec).spec);
  }

  /**
   * Removes the scratch folder and the local sources, ends every session;
   * says where a recycle bin kept the removed files. Never throws; a second
   * call waits for the first.
   */
  close(): Promise<{ keptByRecycleBin?: string; left?: string }> {
    return (this.closing ??= this.closeOnce());
  }

  private async closeOnce(): Promise<{ keptByRecycleBin?: string; left?: string }> {
    let kept: string | undefined;
    for (const source of this.sources.values()) {
      await source.close().catch(() => undefined);
      source.remove();
    }
    const quick = { timeoutMs: CLEANUP_TIMEOUT_MS };
    // A connection that died (a path that went silent) says the others may be stuck behind it too: no
    // removal through them (each request would wait out its timeout), just the sessions ended and a
    // fresh one's sweep, which finds the folder orphaned once its lease is gone.
    const signed = this.signed && 'session' in this.signed ? [this.signed.session] : [];
    this.signed = undefined;
    const broken = [...this.sessions.values()].some((session) => !session.connection.isOpen);
    let removed = false;
    if (!broken) {
      const cleaned = await this.scratch.remove(quick).catch(() => undefined);
      removed = cleaned !== undefined;
      kept = cleaned?.recycleBin;
    }
    // On a broken path a log-off would wait out its own timeout on every session: the sockets just close.
    await Promise.all([...this.sessions.values(), ...signed].map((session) => (broken ? session.connection.end() : session.end()).catch(() => undefined)));
    if (broken) {
      const fresh = await SmbSession.open(this.share, this.credentials, { timeoutMs: 3_000 }).catch(() => undefined);
      if (fresh) {
        removed = await removeStaleScratch(fresh, this.scratch.sweepRules(false), quick).then(
          (swept) => swept.includes(this.scratch.name),
          () => false,
        );
        await fresh.end().catch(() => undefined);
      }
    }
    return { ...(kept === undefined ? {} : { keptByRecycleBin: kept }), ...(removed ? {} : { left: this.scratch.name }) };
  }
}
