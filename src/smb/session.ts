// An authenticated SMB2/3 session on one share: logged on by
// src/smb/logon.ts (negotiate, NTLMv2, tree connect, who requires signing
// and encryption), then the file operations the test copies are made of.
// Signing and encryption are done by the connection (ConnectionSecurity).

import { payloadBytes, RELATED_FILE_ID } from './request-frames.js';
import type { SmbConnection } from './connection.js';
import type { RequestOptions, RequestSpec, SmbResponse } from './request-frames.js';
import { SmbError } from './errors.js';
import type { DataRange } from './frame-writer.js';
import {
  Access,
  closeRequest,
  CreateOption,
  createRequest,
  Disposition,
  emptyRequest,
  flushRequest,
  DIRECTORY_OUTPUT_BYTES,
  parseCreate,
  parseDirectoryEntries,
  parseQueryInfo,
  parseRead,
  parseWrite,
  queryDirectoryRequest,
  queryInfoRequest,
  readRequest,
  setInfoRequest,
  writeRequest,
} from './messages.js';
import type { CreateParams, CreateResult, DirectoryEntry } from './messages.js';
import { Command, Status } from './protocol.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';
import { logOn } from './logon.js';
import type { Negotiated, OpenOptions, SmbCredentials, SmbTarget } from './session-types.js';

export type { LoginUsed, Negotiated, OpenOptions, SecurityPolicy, ServerSays, SmbCredentials, SmbTarget } from './session-types.js';
export { credentialsFrom } from './session-types.js';

/**
 * Each phase of opening a session has a deadline of its own, whatever the
 * server does meanwhile: one round trip each, even on a 600 ms satellite
 * path, with room for a domain controller's answer at login. A server that
 * trickles or stalls there ends in a typed timeout, not a wait.
 */
/** A request of a compound after its open, on the open's handle: the session adds the tree. */
export type RelatedRequest = Omit<RequestSpec, 'treeId'>;

const toWindowsPath = (path: string): string => path.replace(/\//g, '\\').replace(/^\\+/, '');

/** The most entries a listing may hold (a share root of 100,000 names is ~20 MiB of them). */
const MAX_LISTING_ENTRIES = 100_000;
/** Replies a listing may take: 100,000 short names fit in ~200 of 64 KiB; more is a server that never ends it. */
const MAX_LISTING_PAGES = 2_000;
/** What a QUERY_DIRECTORY answers at the end of a listing, or for a folder with nothing to list. */
const LISTING_END: readonly number[] = [Status.noMoreFiles, Status.objectNameNotFound, Status.noSuchFile];

/** A reply's header and fixed part, beyond the data it carries. */
const REPLY_OVERHEAD_BYTES = 256;

export class SmbSession {
  private constructor(
    readonly connection: SmbConnection,
    readonly target: SmbTarget,
    readonly negotiated: Negotiated,
    readonly treeId: number,
    /** What this account may do on the share at most (TREE_CONNECT's MaximalAccess), where the server said. */
    readonly shareMaximalAccess?: number,
  ) {}

  /**
   * Connects, negotiates what the offer allows, logs in and connects the
   * share (src/smb/logon.ts). Fails with a typed SmbError.
   */
  static async open(target: SmbTarget, credentials: SmbCredentials, options: OpenOptions = {}): Promise<SmbSession> {
    const { connection, negotiated, treeId, shareMaximalAccess } = await logOn(target, credentials, options);
    return new SmbSession(connection, target, negotiated, treeId, shareMaximalAccess);
  }

  private request(
    command: number,
    body: Buffer,
    what: string,
    options: RequestOptions & {
      payload?: RequestSpec['payload'];
      spendPayload?: boolean;
      creditCharge?: number;
      okStatuses?: readonly number[];
      replyBytes?: number;
    } = {},
  ): Promise<SmbResponse> {
    return this.connection.request(
      {
        command,
        body,
        what,
        treeId: this.treeId,
        ...(options.payload ? { payload: options.payload } : {}),
        ...(options.spendPayload ? { spendPayload: true } : {}),
        ...(options.creditCharge ? { creditCharge: options.creditCharge } : {}),
        ...(options.okStatuses ? { okStatuses: options.okStatuses } : {}),
        ...(options.replyBytes ? { replyBytes: options.replyBytes } : {}),
      },
      options,
    );
  }

  /** Credits a read or write of this many bytes costs (1 below 64 KiB, or on SMB 2.0.2). */
  creditCharge(bytes: number): number {
    return this.negotiated.largeMtu ? Math.max(1, Math.ceil(bytes / BYTES_PER_CREDIT)) : 1;
  }

  async create(params: CreateParams, options: RequestOptions = {}): Promise<CreateResult> {
    const path = toWindowsPath(params.path);
    const reply = await this.request(Command.create, createRequest({ ...params, path }), `open ${params.path || '(share root)'}`, options);
    return parseCreate(reply.body);
  }

  /** CREATE and QUERY_INFO compounded: one round trip, as Windows 7 and later open a file. */
  async createAndQuery(params: CreateParams, infoClass: number, options: RequestOptions = {}): Promise<CreateResult> {
    const path = toWindowsPath(params.path);
    const [created, queried] = await this.connection.compound(
      [
        { command: Command.create, body: createRequest({ ...params, path }), treeId: this.treeId, what: `open ${params.path}` },
        { command: Command.queryInfo, body: queryInfoRequest(RELATED_FILE_ID, 1, infoClass), treeId: this.treeId, what: `query ${params.path}` },
      ],
      options,
    );
    if (!created || !queried) throw new SmbError('protocol', `Incomplete compound reply for ${params.path}.`, 'The server log may say more.');
    return parseCreate(created.body);
  }

  async close(fileId: Buffer, options: RequestOptions & { okStatuses?: readonly number[] } = {}): Promise<void> {
    await this.request(Command.close, closeRequest(fileId), 'close', options);
  }

  async read(fileId: Buffer, offset: number, length: number, options: RequestOptions = {}): Promise<Buffer> {
    const reply = await this.request(Command.read, readRequest(fileId, offset, length), `read ${length} bytes at ${offset}`, {
      ...options,
      creditCharge: this.creditCharge(length),
      replyBytes: REPLY_OVERHEAD_BYTES + length,
    });
    return parseRead(reply.body, length);
  }

  /**
   * Writes `data` at `offset`: one buffer, pieces sent without joining them,
   * or a range of a local file or of the test pattern when the connection
   * sends ranges (connection.sendsRanges). With `spend`, the buffers are
   * the caller's to lose once sent: sealing encrypts them in place.
   */
  async write(
    fileId: Buffer,
    offset: number,
    data: Buffer | readonly Buffer[] | DataRange,
    options: RequestOptions & { readonly spend?: boolean } = {},
  ): Promise<number> {
    const length = payloadBytes(data);
    const reply = await this.request(Command.write, writeRequest(fileId, offset, length), `write ${length} bytes at ${offset}`, {
      ...options,
      payload: data,
      spendPayload: options.spend === true,
      creditCharge: this.creditCharge(length),
    });
    return parseWrite(reply.body, length);
  }

  async queryInfo(fileId: Buffer, infoType: number, infoClass: number, options: RequestOptions = {}): Promise<Buffer> {
    const reply = await this.request(Command.queryInfo, queryInfoRequest(fileId, infoType, infoClass), `query info class ${infoClass}`, {
      ...options,
      okStatuses: [Status.bufferOverflow],
    });
    return parseQueryInfo(reply.body);
  }

  async setInfo(fileId: Buffer, infoClass: number, value: Buffer, options: RequestOptions = {}): Promise<void> {
    await this.request(Command.setInfo, setInfoRequest(fileId, infoClass, value), `set info class ${infoClass}`, options);
  }

  async flush(fileId: Buffer, options: RequestOptions = {}): Promise<void> {
    await this.request(Command.flush, flushRequest(fileId), 'flush', options);
  }

  /** One QUERY_DIRECTORY: the entries matching `pattern` ([] when none are left). */
  async queryDirectory(fileId: Buffer, pattern: string, flags: number, options: RequestOptions = {}): Promise<DirectoryEntry[]> {
    const reply = await this.request(Command.queryDirectory, queryDirectoryRequest(fileId, pattern, flags), `list ${pattern}`, {
      ...options,
      okStatuses: LISTING_END,
      replyBytes: REPLY_OVERHEAD_BYTES + DIRECTORY_OUTPUT_BYTES,
    });
    return reply.header.status === Status.success ? parseDirectoryEntries(reply.body) : [];
  }

  async echo(options: RequestOptions = {}): Promise<void> {
    await this.connection.request({ command: Command.echo, body: emptyRequest('echo'), what: 'ECHO' }, options);
  }

  /**
   * Asks the server for `wanted` credits before a pipeline starts: a reply can
   * only grant credits to a request, so with nothing in flight an 8 MiB read
   * (128 credits) could wait for ever. Sends ECHOs whose headers ask for the
   * difference, until the grant reaches `wanted` or stops growing (the
   * server's ceiling, e.g. `smb2 max credits`). Returns the credits held.
   */
  async reserveCredits(wanted: number, options: RequestOptions = {}): Promise<number> {
    const { connection } = this;
    const held = () => connection.credits.credits + connection.credits.creditsInFlight;
    connection.creditTarget = Math.max(connection.creditTarget, wanted);
    // Each ECHO may double what the server grants; eight cover 1 to 8192.
    for (let attempt = 0; attempt < 8 && held() < wanted; attempt++) {
      const before = held();
      await this.echo(options);
      if (held() <= before) break;
    }
    return held();
  }

  // --- Conveniences built on the operations above --------------------------------

  /**
   * After a compound of an open and its related close: where the open
   * succeeded and the close did not (a server may pass an earlier status on
   * instead of closing, MS-SMB2 3.3.5.2.7.2), the handle is closed on its
   * own, so none is left open (and a delete-on-close happens).
   */
  async closeIfLeft(created: SmbResponse | undefined, closed: SmbResponse | undefined, options: RequestOptions = {}): Promise<void> {
    if (created?.header.status !== Status.success || closed?.header.status === Status.success) return;
    const { fileId } = parseCreate(created.body);
    await this.close(fileId, { ...options, okStatuses: [Status.fileClosed] });
  }

  /**
   * An open, requests on its handle, and its close, in one compound: one
   * round trip (MS-SMB2 3.2.4.1.4). The close may answer anything; where the
   * open succeeded and the close did not, the handle is closed on its own
   * (closeIfLeft). Returns the replies of the open and of the requests
   * between (pass RELATED_FILE_ID for their handle).
   */
  async openRelated(
    params: CreateParams,
    between: readonly RelatedRequest[],
    what: string,
    options: RequestOptions = {},
  ): Promise<[SmbResponse, ...SmbResponse[]]> {
    const responses = await this.connection.compound(
      [
        { command: Command.create, body: createRequest({ ...params, path: toWindowsPath(params.path) }), treeId: this.treeId, what: `${what} ${params.path}` },
        ...between.map((spec) => ({ ...spec, treeId: this.treeId })),
        { command: Command.close, body: closeRequest(RELATED_FILE_ID), treeId: this.treeId, what: `close ${params.path}`, anyStatus: true },
      ],
      options,
    );
    if (responses.length !== between.length + 2)
      throw new SmbError('protocol', `Incomplete compound reply for ${params.path}.`, 'The server log may say more.');
    await this.closeIfLeft(responses[0], responses[responses.length - 1], options);
    return responses.slice(0, -1) as [SmbResponse, ...SmbResponse[]];
  }

  /** A file's end-of-file as the server holds it: the CREATE reply's own EndofFile, then a related CLOSE (one round trip). */
  async sizeOf(path: string, options: RequestOptions = {}): Promise<number> {
    const [created] = await this.openRelated(
      { path, access: Access.readAttributes, disposition: Disposition.open, options: CreateOption.nonDirectory },
      [],
      'open for its size',
      options,
    );
    return parseCreate(created.body).endOfFile;
  }

  async makeDirectory(path: string, options: RequestOptions = {}): Promise<void> {
    await this.openRelated(
      { path, access: Access.listDirectory | Access.readAttributes, disposition: Disposition.create, options: CreateOption.directory, directory: true },
      [],
      'make',
      options,
    );
  }

  /** Every entry of a directory, "." and ".." left out. */
  async listDirectory(path: string, options: RequestOptions = {}): Promise<DirectoryEntry[]> {
    return (await this.listDirectoryWithLinks(path, options)).entries;
  }

  /**
   * A folder's entries, with the server's ids of the folder itself (`.`) and
   * of its parent (`..`): a folder reached through a link has the parent of
   * the link's target, not of the link (scratch.ts tells links apart so).
   * At most MAX_LISTING_ENTRIES entries: a listing is never allowed to grow
   * without bound.
   */
  async listDirectoryWithLinks(path: string, options: RequestOptions = {}): Promise<{ entries: DirectoryEntry[]; self?: bigint; parent?: bigint }> {
    const { closed, ...listing } = await this.listDirectoryClosing(path, options);
    await closed;
    return listing;
  }

  /**
   * A listing whose handle's close is still in flight (`closed` settles when
   * it is done, never rejects): a clean-up removes the entries meanwhile and
   * waits for it only before removing the folder itself, a round trip saved
   * per folder.
   */
  async listDirectoryClosing(
    path: string,
    options: RequestOptions = {},
  ): Promise<{ entries: DirectoryEntry[]; self?: bigint; parent?: bigint; closed: Promise<void> }> {
    // The open and the first two pages in one compound (MS-SMB2 3.2.4.1.4): a folder that fits one reply is
    // listed in one round trip, its end (STATUS_NO_MORE_FILES) included, where open, list, list again took
    // three; a clean-up of nested folders pays that at every level on a long path. A server fails a related
    // request after one that failed with the same status (3.3.5.2.7.2): an empty folder's second page says
    // no more files too.
    const windowsPath = toWindowsPath(path);
    const page = {
      command: Command.queryDirectory,
      treeId: this.treeId,
      what: 'list *',
      okStatuses: LISTING_END,
      replyBytes: REPLY_OVERHEAD_BYTES + DIRECTORY_OUTPUT_BYTES,
    };
    const [created, firstPage, secondPage] = await this.connection.compound(
      [
        {
          command: Command.create,
          body: createRequest({
            path: windowsPath,
            access: Access.listDirectory | Access.readAttributes,
            disposition: Disposition.open,
            options: CreateOption.directory,
            directory: true,
          }),
          treeId: this.treeId,
          what: `open ${path || '(share root)'}`,
        },
        { ...page, body: queryDirectoryRequest(RELATED_FILE_ID, '*', 1) },
        { ...page, body: queryDirectoryRequest(RELATED_FILE_ID, '*', 0) },
      ],
      options,
    );
    if (!created || !firstPage || !secondPage)
      throw new SmbError('protocol', `Incomplete compound reply listing ${path || '(share root)'}.`, 'The server log may say more.');
    const { fileId } = parseCreate(created.body);
    const close = () => this.close(fileId, options).catch(() => undefined);
    try {
      const entries: DirectoryEntry[] = [];
      let self: bigint | undefined;
      let parent: bigint | undefined;
      // Bounded in pages too: a server that answered with '.' and '..' for ever would add no entries.
      for (let page = 0; ; page++) {
        if (page >= MAX_LISTING_PAGES)
          throw new SmbError(
            'protocol',
            `The folder ${path || '(share root)'} kept listing after ${MAX_LISTING_PAGES} replies.`,
            'The server, or something on the path to it, is misbehaving.',
          );
        const compounded = [firstPage, secondPage][page];
        const batch = compounded
          ? compounded.header.status === Status.success
            ? parseDirectoryEntries(compounded.body)
            : []
          : await this.queryDirectory(fileId, '*', 0, options);
        if (batch.length === 0) break;
        for (const entry of batch) {
          if (entry.name === '.') self = entry.fileId;
          else if (entry.name === '..') parent = entry.fileId;
          else entries.push(entry);
        }
        if (entries.length > MAX_LISTING_ENTRIES)
          throw new SmbError(
            'protocol',
            `The folder ${path || '(share root)'} lists more than ${MAX_LISTING_ENTRIES} entries.`,
            'Pipefill lists only its scratch folders and the share root; point it at a share whose root is smaller, or a subfolder.',
          );
      }
      return { entries, ...(self === undefined ? {} : { self }), ...(parent === undefined ? {} : { parent }), closed: close() };
    } catch (error) {
      await close();
      throw error;
    }
  }

  /**
   * Deletes a file or an empty directory: the name itself, never what a link
   * names (opened delete-on-close with FILE_OPEN_REPARSE_POINT, then closed).
   * Nothing is cut or written first: emptying a file for a recycle bin is the
   * scratch folder's own, for the files its run made (scratch-removal.ts).
   */
  async deletePath(path: string, directory: boolean, options: RequestOptions = {}): Promise<void> {
    // An open that fails takes the close down with it (3.3.5.2.7.2), so no handle is left either way.
    await this.openRelated(
      {
        path,
        access: Access.delete | Access.readAttributes,
        disposition: Disposition.open,
        options: CreateOption.deleteOnClose | CreateOption.openReparsePoint | (directory ? CreateOption.directory : CreateOption.nonDirectory),
        directory,
      },
      [],
      'open to delete',
      options,
    );
  }

  /** Logs off and closes the connection; never throws (it runs in cleanup paths). */
  async end(): Promise<void> {
    if (!this.connection.isOpen) return;
    const quick = { timeoutMs: 2_000 };
    // The tree's disconnect goes first and the LOGOFF right behind it (MS-SMB2 3.2.4.23), both in flight at once:
    // one round trip for the two instead of two. A server that took the LOGOFF first would refuse the disconnect,
    // which changes nothing here: the log-off closes the session's opens (3.3.5.6).
    await Promise.all([
      this.request(Command.treeDisconnect, emptyRequest('treeDisconnect'), 'disconnect the share', quick).catch(() => undefined),
      this.connection.request({ command: Command.logoff, body: emptyRequest('logoff'), what: 'LOGOFF' }, quick).catch(() => undefined),
    ]);
    await this.connection.end();
  }
}
