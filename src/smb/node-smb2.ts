// The parts of node-smb2 (the project's chosen SMB library) that Pipefill
// builds on: its packet structures for the control messages (CLOSE, FLUSH,
// SET_INFO, QUERY_DIRECTORY, ECHO, LOGOFF, TREE_DISCONNECT). NEGOTIATE,
// SESSION_SETUP and TREE_CONNECT are Pipefill's own (negotiate.ts,
// session.ts), and so is NTLM (security/ntlm.ts): node-smb2 speaks no SMB 3
// (no negotiate contexts, no preauth integrity) and its NTLM drops the
// session key that signing and encryption are derived from.
//
// What node-smb2 lacks, and Pipefill's own layer (connection.ts, credits.ts,
// framing.ts, messages.ts) adds:
//  - credit accounting: it asks for 126 credits in every header, never reads
//    the grant, and numbers messages one by one whatever their CreditCharge;
//  - multi-credit (large MTU) reads and writes and the negotiated max sizes;
//  - interim responses: it settles a request on STATUS_PENDING, before the
//    real reply arrives;
//  - framing that does not re-copy its receive buffer on every TCP chunk;
//  - compounded requests, QUERY_INFO, and zero-copy READ/WRITE.
// node-smb2 is CommonJS with `export default` modules; they are loaded once,
// here, with the types Pipefill relies on.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Structure = Record<string, unknown>;
interface PacketStructures {
  readonly requestStructure: Structure;
  readonly responseStructure: Structure;
}

interface StructureUtil {
  serializeStructure(structure: Structure, data: Record<string, unknown>): Buffer;
  parseStructure(buffer: Buffer, structure: Structure): Record<string, unknown>;
}

const structureUtil = require('node-smb2/dist/protocol/structureUtil.js') as StructureUtil;

const packet = (name: string): PacketStructures => (require(`node-smb2/dist/protocol/smb2/packets/${name}.js`) as { default: PacketStructures }).default;

export const packets = {
  treeDisconnect: packet('TreeDisconnect'),
  logoff: packet('LogOff'),
  create: packet('Create'),
  close: packet('Close'),
  flush: packet('Flush'),
  echo: packet('Echo'),
  setInfo: packet('SetInfo'),
  queryDirectory: packet('QueryDirectory'),
} as const;
export type PacketName = keyof typeof packets;

export function encodeBody(name: PacketName, data: Record<string, unknown>): Buffer {
  return structureUtil.serializeStructure(packets[name].requestStructure, data);
}

export function decodeBody(name: PacketName, body: Buffer): Record<string, unknown> {
  return structureUtil.parseStructure(body, packets[name].responseStructure);
}
