// Where a share is, as people write it: `\\server\share`, `//server/share`,
// `smb://server/share`, with an optional port (`//127.0.0.1:4450/share`),
// and optionally a folder below the share (`\\server\share\team\scratch`)
// for people who may write only there: Pipefill's scratch folder goes in it.

import { PipefillInputError } from './errors.js';
import { hasControlCharacter } from './terminal-text.js';

export interface SharePath {
  /** The server's name as typed: SMB and Kerberos name the server by it. */
  readonly host: string;
  readonly port: number;
  readonly share: string;
  /** A folder below the share, `/`-separated, where Pipefill works (its scratch folder goes there); absent: the share's root. */
  readonly folder?: string;
  /** Where to connect instead of resolving `host` (like smbclient's -I): a name DNS does not know, or a chosen address. */
  readonly address?: string;
}

/** Where a connection to the share goes: its address where one was given, else its name. */
export const connectHost = (path: SharePath): string => path.address ?? path.host;

/** The share path of a login input, with the address to connect to where the person gave one. */
export function shareTarget(input: { share: string; address?: string | undefined }): SharePath {
  return withAddress(parseSharePath(input.share), input.address);
}

/** A share's parts with the address to connect to instead of its name (smbclient's -I), where one is given; checked. */
export function withAddress(path: SharePath, address: string | undefined): SharePath {
  const given = address?.trim();
  if (given === undefined || given === '') return path;
  const host = given.replace(/^\[|\]$/g, '');
  if (!HOST.test(given) && !HOST.test(`[${host}]`))
    throw new PipefillInputError(`${JSON.stringify(given)} is not an address or host name to connect to.`, 'Give an IP address such as 192.0.2.10, or a name.');
  return { ...path, address: host };
}

export const SMB_PORT = 445;

const EXPECTED = 'a share path such as \\\\server\\share, //server/share or smb://server:445/share';
const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)$/i;
const SHARE = /^[^\\/:*?"<>|]{1,80}$/;
const FOLDER_PART = /^[^\\/:*?"<>|]{1,255}$/;
const MAX_FOLDER_DEPTH = 16;

export function parseSharePath(text: string): SharePath {
  // Control characters are never part of a share path, and would reach terminals and reports.
  if (hasControlCharacter(text)) throw new PipefillInputError(`${JSON.stringify(text)} holds a control character.`, `Expected ${EXPECTED}.`);
  const trimmed = text.trim();
  const body = trimmed.replace(/^smb:\/\//i, '').replace(/^(\\\\|\/\/)/, '');
  if (body === trimmed && !/^smb:/i.test(trimmed)) {
    throw new PipefillInputError(`${JSON.stringify(text)} is not a share path.`, `Expected ${EXPECTED}.`);
  }
  const parts = body.split(/[\\/]/).filter((part) => part !== '');
  const [authority, share, ...rest] = parts;
  if (!authority || !share) throw new PipefillInputError(`${JSON.stringify(text)} names no share.`, `Expected ${EXPECTED}.`);
  // A folder below the share: plain names only (no `.`, `..`, or what Windows refuses in a name), at most 16 deep.
  const badPart = rest.find((part) => part === '.' || part === '..' || !FOLDER_PART.test(part));
  if (badPart !== undefined || rest.length > MAX_FOLDER_DEPTH)
    throw new PipefillInputError(
      badPart !== undefined
        ? `${JSON.stringify(badPart)} is not a folder name Pipefill can work in.`
        : `${JSON.stringify(text)} goes more than ${MAX_FOLDER_DEPTH} folders deep.`,
      'Give the share, or a folder in it by plain names: \\\\server\\share\\team\\scratch.',
    );
  const portMatch = /^(.*?)(?::(\d+))?$/.exec(authority);
  const host = portMatch?.[1] ?? authority;
  const port = portMatch?.[2] === undefined ? SMB_PORT : Number(portMatch[2]);
  if (!HOST.test(host)) throw new PipefillInputError(`${JSON.stringify(host)} is not a server name or address.`, `Expected ${EXPECTED}.`);
  if (!(Number.isInteger(port) && port >= 1 && port <= 65_535))
    throw new PipefillInputError(`Port ${port} is out of range.`, 'Ports run from 1 to 65535; SMB uses 445.');
  if (!SHARE.test(share) || hasControlCharacter(share))
    throw new PipefillInputError(`${JSON.stringify(share)} is not a valid share name.`, 'Share names cannot contain \\ / : * ? " < > |.');
  return { host: host.replace(/^\[|\]$/g, ''), port, share, ...(rest.length > 0 ? { folder: rest.join('/') } : {}) };
}

export function formatSharePath(path: SharePath): string {
  const host = path.host.includes(':') ? `[${path.host}]` : path.host;
  return `//${host}${path.port === SMB_PORT ? '' : `:${path.port}`}/${path.share}${path.folder ? `/${path.folder}` : ''}`;
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** `host`, `host:port` or `[v6]:port`, as given for an iperf3 server. */
export function parseHostPort(text: string, defaultPort: number): HostPort {
  const match = /^(\[[0-9a-f:.]+\]|[^:]+)(?::(\d+))?$/i.exec(text.trim());
  const host = match?.[1]?.replace(/^\[|\]$/g, '');
  const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
  if (!match || !host || !HOST.test(match[1] ?? ''))
    throw new PipefillInputError(`${JSON.stringify(text)} is not a host or host:port.`, 'For example fileserver, fileserver:5201 or 10.0.0.5:5201.');
  if (!(Number.isInteger(port) && port >= 1 && port <= 65_535))
    throw new PipefillInputError(`Port ${match[2]} is out of range.`, 'Ports run from 1 to 65535; iperf3 uses 5201.');
  return { host, port };
}
