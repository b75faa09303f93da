// Plays a client profile's metadata sequences (src/model/metadata.ts) against
// the share, one real round trip per step, so a directory copy costs the
// round trips the model counts. The data moves inside the file's sequence,
// through the handle its first create opens.
//
// How each step maps onto SMB2 (SMB1 generations are emulated over SMB2):
//  - ['create'] opens a handle (the first one of a file is the data handle:
//    created for writes, opened for reads); later ones re-open the file.
//  - ['create', X] compounds the open with X in one round trip. An open that
//    finds nothing (a destination probe before a write) leaves no handle.
//  - ['query-info'] with no handle open queries by path, as SMB1 does: a
//    compounded open-query-close, still one round trip.
//  - ['query-directory'] with no directory handle looks the name up in its
//    folder (SMB1 FIND_FIRST2): a compounded open-list-close.
//  - ['set-info'] sets end-of-file before the data (as copy engines size the
//    file first) and last-write time after it.
//  - ['close'] closes the newest handle; the data phase runs just before the
//    data handle's flush or close. ['create-directory', 'close'] makes a
//    directory and closes it in one compound, leaving no handle.

import { RELATED_FILE_ID } from '../smb/request-frames.js';
import type { RequestOptions, SmbResponse } from '../smb/request-frames.js';
import { SmbError } from '../smb/errors.js';
import type { MetadataOp, RoundTrip } from '../model/metadata.js';
import {
  Access,
  basicInfo,
  closeRequest,
  CreateOption,
  createRequest,
  Disposition,
  FileInfoClass,
  flushRequest,
  InfoType,
  parseCreate,
  queryDirectoryRequest,
  QueryDirectoryFlag,
  queryInfoRequest,
  setInfoRequest,
  sizeInfo,
} from '../smb/messages.js';
import { Command, Status } from '../smb/protocol.js';
import type { SmbSession } from '../smb/session.js';
import type { TimelineRecorder } from './timeline.js';

export interface ReplayTarget {
  readonly session: SmbSession;
  readonly op: 'read' | 'write';
  /** Path of the file or directory the sequence is about. */
  readonly path: string;
  readonly kind: 'file' | 'directory';
  /** File size (sets end-of-file before a write's data). */
  readonly bytes: number;
  /** Moves the data through the data handle; files only. */
  readonly moveData?: (fileId: Buffer) => Promise<void>;
  readonly recorder: TimelineRecorder;
  readonly options: RequestOptions;
  /** Only the first `bytes` of the file are wanted (a read-back of what a stopped copy wrote): the file may be longer. */
  readonly prefix?: boolean;
}

/** Statuses a probe of something not yet there may answer with. */
const ABSENT = [Status.objectNameNotFound, Status.objectPathNotFound, Status.noMoreFiles, Status.noSuchFile];

const parentOf = (path: string): string => path.split('/').slice(0, -1).join('/');
const nameOf = (path: string): string => path.split('/').pop() ?? path;

class Replayer {
  private readonly handles: Buffer[] = [];
  private dataHandle: Buffer | undefined;
  private dataDone = false;
  private dataHandleCreated = false;
  roundTrips = 0;

  constructor(private readonly target: ReplayTarget) {}

  private createParams(first: boolean): Parameters<typeof createRequest>[0] {
    const { op, path, kind } = this.target;
    const directory = kind === 'directory';
    if (first && op === 'write') {
      return directory
        ? { path, access: Access.listDirectory | Access.readAttributes, disposition: Disposition.create, options: CreateOption.directory, directory }
        : {
            path,
            access: Access.readData | Access.writeData | Access.readAttributes | Access.writeAttributes,
            disposition: Disposition.overwriteIf,
            options: CreateOption.nonDirectory,
          };
    }
    return directory
      ? { path, access: Access.listDirectory | Access.readAttributes, disposition: Disposition.open, options: CreateOption.directory, directory }
      : {
          path,
          access: (op === 'read' ? Access.readData : 0) | Access.readAttributes | Access.writeAttributes,
          disposition: Disposition.open,
          options: CreateOption.nonDirectory,
        };
  }

  private async send(specs: { command: number; body: Buffer; what: string; okStatuses?: readonly number[] }[]): Promise<SmbResponse[]> {
    this.roundTrips += 1;
    // An open and its related close: whatever the close answers, the handle is checked closed after (closeIfLeft).
    const closesChain = specs.length > 1 && specs[0]?.command === Command.create && specs[specs.length - 1]?.command === Command.close;
    const responses = await this.target.session.connection.compound(
      specs.map((spec, index) => ({ ...spec, treeId: this.target.session.treeId, ...(closesChain && index === specs.length - 1 ? { anyStatus: true } : {}) })),
      this.target.options,
    );
    // Each message of a compound is an operation on the timeline.
    responses.forEach(() => this.target.recorder.record(0));
    if (closesChain) await this.target.session.closeIfLeft(responses[0], responses[responses.length - 1], this.target.options);
    return responses;
  }

  private top(step: string): Buffer {
    const handle = this.handles[this.handles.length - 1];
    if (!handle)
      throw new SmbError(
        'protocol',
        `Metadata step ${step} on ${this.target.path} has no open handle.`,
        'A client profile sequence is malformed; this is a bug in Pipefill.',
      );
    return handle;
  }

  private async runData(): Promise<void> {
    if (this.dataDone || !this.dataHandle || !this.target.moveData) return;
    this.dataDone = true;
    await this.target.moveData(this.dataHandle);
  }

  async step(roundTrip: RoundTrip): Promise<void> {
    const [first, ...rest] = roundTrip;
    if (!first) return;
    const { path, kind } = this.target;
    if (first === 'create' || first === 'create-directory') {
      await this.open(first, rest);
      return;
    }
    if (rest.length > 0)
      throw new SmbError(
        'protocol',
        `Cannot compound ${roundTrip.join('+')} without an open.`,
        'A client profile sequence is malformed; this is a bug in Pipefill.',
      );
    await this.single(first, path, kind);
  }

  private async open(first: MetadataOp, rest: readonly MetadataOp[]): Promise<void> {
    const isDataCreate =
      !this.dataHandleCreated && (first === 'create-directory' || (rest.length === 0 && this.target.kind === 'file') || this.target.op === 'read');
    const params = first === 'create-directory' ? this.createParams(true) : this.createParams(isDataCreate);
    const probe = this.target.op === 'write' && !this.dataHandleCreated && !isDataCreate;
    const specs = [
      {
        command: Command.create,
        body: createRequest({ ...params, path: params.path.replace(/\//g, '\\') }),
        what: `open ${this.target.path}`,
        ...(probe ? { okStatuses: ABSENT } : {}),
      },
      ...rest.map((op) => this.relatedSpec(op, probe)),
    ];
    const [created] = await this.send(specs);
    if (!created || created.header.status !== Status.success) return; // a probe that found nothing
    if (rest.includes('close')) return; // opened and closed in one compound: no handle stays open
    const opened = parseCreate(created.body);
    const handle = opened.fileId;
    this.handles.push(handle);
    // The file was written by this test a moment ago: a server that reports another size is not to be read by its word.
    if (
      isDataCreate &&
      this.target.op === 'read' &&
      this.target.kind === 'file' &&
      (this.target.prefix ? opened.endOfFile < this.target.bytes : opened.endOfFile !== this.target.bytes)
    ) {
      throw new SmbError(
        'protocol',
        `The server says ${this.target.path} is ${opened.endOfFile} bytes; Pipefill wrote ${this.target.bytes}.`,
        'The server, or something on the path to it, is misbehaving, or another program changed the scratch file.',
      );
    }
    if (isDataCreate) {
      this.dataHandleCreated = true;
      this.dataHandle = handle;
    }
  }

  private relatedSpec(op: MetadataOp, probe: boolean) {
    const okStatuses = probe ? [...ABSENT, Status.noMoreFiles] : [Status.noMoreFiles];
    if (op === 'query-info')
      return {
        command: Command.queryInfo,
        body: queryInfoRequest(RELATED_FILE_ID, InfoType.file, FileInfoClass.basic),
        what: `query ${this.target.path}`,
        okStatuses,
      };
    if (op === 'query-directory')
      return {
        command: Command.queryDirectory,
        body: queryDirectoryRequest(RELATED_FILE_ID, '*', QueryDirectoryFlag.restartScans),
        what: `list ${this.target.path}`,
        okStatuses,
      };
    if (op === 'close') return { command: Command.close, body: closeRequest(RELATED_FILE_ID), what: `close ${this.target.path}`, okStatuses };
    throw new SmbError('protocol', `Cannot compound ${op} after an open.`, 'A client profile sequence is malformed; this is a bug in Pipefill.');
  }

  private async single(op: MetadataOp, path: string, kind: 'file' | 'directory'): Promise<void> {
    const handle = this.handles[this.handles.length - 1];
    switch (op) {
      case 'query-info': {
        if (handle) {
          await this.send([{ command: Command.queryInfo, body: queryInfoRequest(handle, InfoType.file, FileInfoClass.standard), what: `query ${path}` }]);
          return;
        }
        // By path: open, query, close in one compound; absent is a fine answer.
        const params = this.createParams(false);
        await this.send([
          {
            command: Command.create,
            body: createRequest({ ...params, access: Access.readAttributes, path: path.replace(/\//g, '\\') }),
            what: `query ${path}`,
            okStatuses: ABSENT,
          },
          {
            command: Command.queryInfo,
            body: queryInfoRequest(RELATED_FILE_ID, InfoType.file, FileInfoClass.basic),
            what: `query ${path}`,
            okStatuses: ABSENT,
          },
          { command: Command.close, body: closeRequest(RELATED_FILE_ID), what: `close ${path}`, okStatuses: ABSENT },
        ]);
        return;
      }
      case 'query-directory': {
        if (handle && kind === 'directory') {
          await this.send([
            { command: Command.queryDirectory, body: queryDirectoryRequest(handle, '*', 0), what: `list ${path}`, okStatuses: [Status.noMoreFiles] },
          ]);
          return;
        }
        // Look the name up in its folder, SMB1 FIND_FIRST2 style.
        const folder = (kind === 'directory' ? path : parentOf(path)).replace(/\//g, '\\');
        const pattern = kind === 'directory' ? '*' : nameOf(path);
        await this.send([
          {
            command: Command.create,
            body: createRequest({
              path: folder,
              access: Access.listDirectory | Access.readAttributes,
              disposition: Disposition.open,
              options: CreateOption.directory,
              directory: true,
            }),
            what: `open ${folder}`,
            okStatuses: ABSENT,
          },
          {
            command: Command.queryDirectory,
            body: queryDirectoryRequest(RELATED_FILE_ID, pattern, QueryDirectoryFlag.restartScans),
            what: `find ${pattern}`,
            okStatuses: ABSENT,
          },
          { command: Command.close, body: closeRequest(RELATED_FILE_ID), what: `close ${folder}`, okStatuses: ABSENT },
        ]);
        return;
      }
      case 'set-info': {
        const target = this.top('set-info');
        const beforeData = target === this.dataHandle && !this.dataDone && this.target.op === 'write' && kind === 'file';
        const [infoClass, value] = beforeData ? [FileInfoClass.endOfFile, sizeInfo(this.target.bytes)] : [FileInfoClass.basic, basicInfo(new Date())];
        await this.send([{ command: Command.setInfo, body: setInfoRequest(target, infoClass, value), what: `set info on ${path}` }]);
        return;
      }
      case 'flush': {
        const target = this.top('flush');
        if (target === this.dataHandle) await this.runData();
        await this.send([{ command: Command.flush, body: flushRequest(target), what: `flush ${path}` }]);
        return;
      }
      case 'close': {
        const target = this.top('close');
        if (target === this.dataHandle) await this.runData();
        this.handles.pop();
        await this.send([{ command: Command.close, body: closeRequest(target), what: `close ${path}` }]);
        return;
      }
      default:
        throw new SmbError('protocol', `Metadata step ${op} cannot stand alone.`, 'A client profile sequence is malformed; this is a bug in Pipefill.');
    }
  }

  /** Closes whatever a failed sequence left open; never throws. */
  async abandon(): Promise<void> {
    for (const handle of this.handles.splice(0).reverse()) {
      await this.target.session.close(handle, { timeoutMs: 2_000 }).catch(() => undefined);
    }
  }

  assertComplete(): void {
    if (this.target.moveData && !this.dataDone) {
      throw new SmbError(
        'protocol',
        `The metadata sequence for ${this.target.path} never closed its data handle.`,
        'A client profile sequence is malformed; this is a bug in Pipefill.',
      );
    }
  }
}

/** Runs one sequence; returns the round trips it took. */
export async function replay(sequence: readonly RoundTrip[], target: ReplayTarget): Promise<number> {
  const replayer = new Replayer(target);
  try {
    for (const roundTrip of sequence) await replayer.step(roundTrip);
    replayer.assertComplete();
    return replayer.roundTrips;
  } catch (error) {
    await replayer.abandon();
    throw error;
  }
}
