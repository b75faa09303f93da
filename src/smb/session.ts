// An authenticated SMB2 session on one share: negotiate, NTLMv2 login, tree
// connect, then the file operations the test copies are made of.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { payloadBytes, RELATED_FILE_ID, SmbConnection } from './connection.js';
import type { RequestOptions, RequestSpec, SmbResponse } from './connection.js';
import { SmbError } from './errors.js';
import type { FileRange, WriterChoice } from './frame-writer.js';
import {
  Access,
  closeRequest,
  CreateOption,
  createRequest,
  Disposition,
  emptyRequest,
  flushRequest,
  negotiateRequest,
  parseCreate,
  parseDirectoryEntries,
  parseNegotiate,
  parseQueryInfo,
  parseRead,
  parseSessionSetup,
  parseWrite,
  queryDirectoryRequest,
  queryInfoRequest,
  readRequest,
  sessionSetupRequest,
  setInfoRequest,
  treeConnectRequest,
  writeRequest,
} from './messages.js';
import type { CreateParams, CreateResult, DirectoryEntry } from './messages.js';
import { ntlmMessages } from './node-smb2.js';
import { CAP_LARGE_MTU, Command, Dialect, Status } from './protocol.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';

export interface SmbTarget {
  readonly host: string;
  readonly port: number;
  readonly share: string;
}

export interface SmbCredentials {
  readonly user: string;
  readonly password: string;
  readonly domain?: string;
}

export interface Negotiated {
  readonly dialect: '2.0.2' | '2.1';
  readonly maxReadSize: number;
  readonly maxWriteSize: number;
  readonly maxTransactSize: number;
  /** Multi-credit requests over 64 KiB (SMB 2.1 large MTU). */
  readonly largeMtu: boolean;
}

export interface OpenOptions extends RequestOptions {
  readonly timeoutMs?: number;
  /** How long a silent server may keep requests waiting (default 15 s). */
  readonly silenceTimeoutMs?: number;
  /** How requests reach the socket (default: Pipefill's sender addon where it is built; see frame-writer.ts). */
  readonly writer?: WriterChoice;
}

const toWindowsPath = (path: string): string => path.replace(/\//g, '\\').replace(/^\\+/, '');

export class SmbSession {
  private constructor(
    readonly connection: SmbConnection,
    readonly target: SmbTarget,
    readonly negotiated: Negotiated,
    readonly treeId: number,
  ) {}

  /** Connects, negotiates, logs in and connects the share. Fails with a typed SmbError. */
  static async open(target: SmbTarget, credentials: SmbCredentials, options: OpenOptions = {}): Promise<SmbSession> {
    const connection = await SmbConnection.connect(target.host, target.port, options);
    try {
      const negotiateReply = await connection.request({ command: Command.negotiate, body: negotiateRequest(randomBytes(16)), what: 'NEGOTIATE' }, options);
      const negotiate = parseNegotiate(negotiateReply.body);
      if (negotiate.dialect !== Dialect.smb202 && negotiate.dialect !== Dialect.smb210) {
        throw new SmbError('protocol', `The server chose dialect 0x${negotiate.dialect.toString(16)}, which Pipefill did not offer.`, 'The server must allow SMB 2.0.2 or 2.1 (server min protocol <= SMB2_10).');
      }
      connection.dialect = negotiate.dialect;
      const largeMtu = negotiate.dialect >= Dialect.smb210 && (negotiate.capabilities & CAP_LARGE_MTU) !== 0;
      const negotiated: Negotiated = {
        dialect: negotiate.dialect === Dialect.smb210 ? '2.1' : '2.0.2',
        maxReadSize: largeMtu ? negotiate.maxReadSize : Math.min(negotiate.maxReadSize, BYTES_PER_CREDIT),
        maxWriteSize: largeMtu ? negotiate.maxWriteSize : Math.min(negotiate.maxWriteSize, BYTES_PER_CREDIT),
        maxTransactSize: negotiate.maxTransactSize,
        largeMtu,
      };
      await SmbSession.login(connection, credentials, options);
      const unc = `\\\\${target.host}\\${target.share}`;
      const tree = await connection.request({ command: Command.treeConnect, body: treeConnectRequest(unc), what: `connect to share ${target.share}` }, options);
      return new SmbSession(connection, target, negotiated, tree.header.treeId);
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  private static async login(connection: SmbConnection, credentials: SmbCredentials, options: RequestOptions): Promise<void> {
    const workstation = hostname().split('.')[0] ?? 'PIPEFILL';
    const domain = credentials.domain ?? '';
    const challengeReply = await connection.request(
      { command: Command.sessionSetup, body: sessionSetupRequest(ntlmMessages.negotiate(workstation, domain)), okStatuses: [Status.moreProcessingRequired], what: 'login (NTLM negotiate)' },
      options,
    );
    connection.sessionId = challengeReply.header.sessionId;
    const challenge = ntlmMessages.challenge(parseSessionSetup(challengeReply.body));
    const authenticate = ntlmMessages.authenticate(credentials.user, workstation, domain, challenge, credentials.password);
    await connection.request({ command: Command.sessionSetup, body: sessionSetupRequest(authenticate), what: `login as ${credentials.user}` }, options);
  }

  private request(command: number, body: Buffer, what: string, options: RequestOptions & { payload?: RequestSpec['payload']; creditCharge?: number; okStatuses?: readonly number[] } = {}): Promise<SmbResponse> {
    return this.connection.request(
      { command, body, what, treeId: this.treeId, ...(options.payload ? { payload: options.payload } : {}), ...(options.creditCharge ? { creditCharge: options.creditCharge } : {}), ...(options.okStatuses ? { okStatuses: options.okStatuses } : {}) },
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

  async close(fileId: Buffer, options: RequestOptions = {}): Promise<void> {
    await this.request(Command.close, closeRequest(fileId), 'close', options);
  }

  async read(fileId: Buffer, offset: number, length: number, options: RequestOptions = {}): Promise<Buffer> {
    const reply = await this.request(Command.read, readRequest(fileId, offset, length), `read ${length} bytes at ${offset}`, { ...options, creditCharge: this.creditCharge(length) });
    return parseRead(reply.body);
  }

  /**
   * Writes `data` at `offset`: one buffer, pieces sent without joining them,
   * or a range of a local file when the connection sends file ranges
   * (connection.sendsFileRanges).
   */
  async write(fileId: Buffer, offset: number, data: Buffer | readonly Buffer[] | FileRange, options: RequestOptions = {}): Promise<number> {
    const length = payloadBytes(data);
    const reply = await this.request(Command.write, writeRequest(fileId, offset, length), `write ${length} bytes at ${offset}`, { ...options, payload: data, creditCharge: this.creditCharge(length) });
    return parseWrite(reply.body);
  }

  async queryInfo(fileId: Buffer, infoType: number, infoClass: number, options: RequestOptions = {}): Promise<Buffer> {
    const reply = await this.request(Command.queryInfo, queryInfoRequest(fileId, infoType, infoClass), `query info class ${infoClass}`, { ...options, okStatuses: [Status.bufferOverflow] });
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
    const reply = await this.request(Command.queryDirectory, queryDirectoryRequest(fileId, pattern, flags), `list ${pattern}`, { ...options, okStatuses: [Status.noMoreFiles, Status.objectNameNotFound, Status.noSuchFile] });
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

  async openDirectory(path: string, options: RequestOptions = {}): Promise<Buffer> {
    const { fileId } = await this.create({ path, access: Access.listDirectory | Access.readAttributes, disposition: Disposition.open, options: CreateOption.directory, directory: true }, options);
    return fileId;
  }

  async makeDirectory(path: string, options: RequestOptions = {}): Promise<void> {
    const { fileId } = await this.create({ path, access: Access.listDirectory | Access.readAttributes, disposition: Disposition.create, options: CreateOption.directory, directory: true }, options);
    await this.close(fileId, options);
  }

  /** Every entry of a directory, "." and ".." left out. */
  async listDirectory(path: string, options: RequestOptions = {}): Promise<DirectoryEntry[]> {
    const fileId = await this.openDirectory(path, options);
    try {
      const names: DirectoryEntry[] = [];
      // Each reply carries up to 64 KiB of entries; a scratch folder holds a few hundred.
      for (let page = 0; page < 10_000; page++) {
        const batch = await this.queryDirectory(fileId, '*', page === 0 ? 1 : 0, options);
        if (batch.length === 0) break;
        names.push(...batch);
      }
      return names.filter((entry) => entry.name !== '.' && entry.name !== '..');
    } finally {
      await this.close(fileId, options).catch(() => undefined);
    }
  }

  /** Deletes a file or an empty directory (opened delete-on-close, then closed). */
  async deletePath(path: string, directory: boolean, options: RequestOptions = {}): Promise<void> {
    const { fileId } = await this.create(
      { path, access: Access.delete | Access.readAttributes, disposition: Disposition.open, options: CreateOption.deleteOnClose | (directory ? CreateOption.directory : CreateOption.nonDirectory), directory },
      options,
    );
    await this.close(fileId, options);
  }

  /** Logs off and closes the connection; never throws (it runs in cleanup paths). */
  async end(): Promise<void> {
    if (!this.connection.isOpen) return;
    const quick = { timeoutMs: 2_000 };
    await this.request(Command.treeDisconnect, emptyRequest('treeDisconnect'), 'disconnect the share', quick).catch(() => undefined);
    await this.connection.request({ command: Command.logoff, body: emptyRequest('logoff'), what: 'LOGOFF' }, quick).catch(() => undefined);
    await this.connection.end();
  }
}

