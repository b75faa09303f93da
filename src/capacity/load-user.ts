// One simulated person of a capacity run: an SMB session and TCP connection
// of their own, copying their own file in the run's scratch folder over and
// over (open, the generation's reads or writes, close) until the run stops
// them. A failure ends this person only; the run goes on with the rest.

import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { Link } from '../model/link.js';
import type { SharePath } from '../model/share-path.js';
import { pipelineFor, pipelineGrowth } from '../copy/drivers.js';
import { Access, CreateOption, Disposition, FileInfoClass, sizeInfo } from '../smb/messages.js';
import { PatternSource } from '../copy/pattern.js';
import type { SmbCredentials } from '../smb/session.js';
import { SmbSession } from '../smb/session.js';
import { TimelineRecorder } from '../copy/timeline.js';
import { transferFile } from '../copy/transfer.js';

export interface LoadUserSpec {
  /** 0-based; mixed runs give even people reads and odd ones writes. */
  readonly index: number;
  readonly op: Op;
  readonly profile: ClientProfileId;
  /** The person's file, inside the run's scratch folder. */
  readonly path: string;
  readonly fileBytes: number;
  /** The probed path: Pipefill's own pipeline sizes itself to it (else it grows as it runs). */
  readonly link?: Link;
}

export class LoadUser {
  /** Payload bytes of every completed request, whatever the pass. */
  readonly recorder = new TimelineRecorder();
  private failureText: string | undefined;
  private loop: Promise<void> | undefined;

  /** The person's TCP connection, as the kernel lists it (kept: a closed socket forgets its port). */
  readonly localPort: number;

  private constructor(
    readonly spec: LoadUserSpec,
    readonly session: SmbSession,
  ) {
    this.localPort = session.connection.endpoints.localPort;
  }

  /** Logs the person on (their own connection) and lays down their file. */
  static async open(share: SharePath, credentials: SmbCredentials, spec: LoadUserSpec, signal?: AbortSignal): Promise<LoadUser> {
    const session = await SmbSession.open(share, credentials, { offer: CLIENT_PROFILES[spec.profile].offer, ...(signal ? { signal } : {}) });
    const user = new LoadUser(spec, session);
    try {
      await user.prepare(signal);
      return user;
    } catch (error) {
      await session.end();
      throw error;
    }
  }

  /**
   * A read needs a file to read: it is given its size by SET_INFO
   * (FileEndOfFileInformation, MS-SMB2 2.2.39, MS-FSCC 2.4.13), so no byte
   * crosses the link to make it, and the server reads a file it holds as
   * unwritten (zeros; on most file systems a sparse one). A write makes its
   * own file on its first pass.
   */
  private async prepare(signal?: AbortSignal): Promise<void> {
    if (this.spec.op !== 'read') return;
    const options = signal ? { signal } : {};
    const { fileId } = await this.session.create(
      {
        path: this.spec.path,
        access: Access.readData | Access.writeData | Access.readAttributes,
        disposition: Disposition.overwriteIf,
        options: CreateOption.nonDirectory,
      },
      options,
    );
    try {
      await this.session.setInfo(fileId, FileInfoClass.endOfFile, sizeInfo(this.spec.fileBytes), options);
    } finally {
      await this.session.close(fileId, options);
    }
  }

  /** Starts copying until `stop` is aborted; a second call does nothing. */
  start(stop: AbortSignal): void {
    this.loop ??= this.copyUntil(stop);
  }

  private async copyUntil(stop: AbortSignal): Promise<void> {
    const { spec, session } = this;
    const profile = CLIENT_PROFILES[spec.profile];
    const pipeline = pipelineFor(profile, session.negotiated, spec.op, spec.fileBytes, spec.link);
    const growth = pipelineGrowth(profile, session.negotiated, spec.op, spec.link);
    const pattern = new PatternSource(`capacity-${spec.index}`, spec.path);
    const open =
      spec.op === 'read'
        ? { path: spec.path, access: Access.readData | Access.readAttributes, disposition: Disposition.open, options: CreateOption.nonDirectory }
        : {
            path: spec.path,
            access: Access.readData | Access.writeData | Access.readAttributes,
            disposition: Disposition.openIf,
            options: CreateOption.nonDirectory,
          };
    try {
      while (!stop.aborted) {
        const { fileId } = await session.create(open, { signal: stop });
        try {
          await transferFile({
            session,
            fileId,
            op: spec.op,
            fileBytes: spec.fileBytes,
            pipeline,
            ...(growth ? { growth } : {}),
            pattern,
            verify: false,
            recorder: this.recorder,
            label: spec.path,
            signal: stop,
          });
        } finally {
          // A stopped pass leaves its handle to the end of the session, which closes it.
          if (!stop.aborted) await session.close(fileId, { signal: stop });
        }
      }
    } catch (error) {
      if (!stop.aborted) this.failureText = error instanceof Error ? error.message : String(error);
    }
  }

  /** Why this person stopped before the run did, if they did. */
  get failure(): string | undefined {
    return this.failureText;
  }

  get running(): boolean {
    return this.loop !== undefined && this.failureText === undefined;
  }

  /** Waits for the loop to notice its stop, then logs off. Never throws. */
  async end(): Promise<void> {
    await this.loop?.catch(() => undefined);
    await this.session.end().catch(() => undefined);
  }
}
