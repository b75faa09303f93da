// The little of DER (ITU-T X.690) that SPNEGO's tokens need: a tag, a
// definite length, the content; nested constructions built from the inside
// out. A server's token is hostile: every length is checked against what is
// left, and a read past the end is a DerError, never a slice of less.

export class DerError extends Error {}

/** One element: its tag byte, its content, and where the next element starts. */
export interface DerElement {
  readonly tag: number;
  readonly content: Buffer;
  readonly end: number;
}

/** The most bytes a length may state: SPNEGO tokens in SMB fit in a SESSION_SETUP's 64 KiB security buffer. */
const MAX_LENGTH = 0xffff_ff;

/** Reads the element at `offset` of `data` (single-byte tags: SPNEGO uses no others). */
export function readElement(data: Buffer, offset = 0): DerElement {
  if (offset + 2 > data.length) throw new DerError(`a DER element at byte ${offset} runs past the token's ${data.length} bytes`);
  const tag = data[offset] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`a multi-byte DER tag at byte ${offset}`);
  let length = data[offset + 1] as number;
  let start = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 3) throw new DerError(`a DER length of ${octets} octets at byte ${offset}`);
    if (start + octets > data.length) throw new DerError(`a DER length at byte ${offset} runs past the token`);
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + (data[start + i] as number);
    start += octets;
  }
  if (length > MAX_LENGTH || start + length > data.length)
    throw new DerError(`a DER element at byte ${offset} states ${length} bytes; ${data.length - start} are left`);
  return { tag, content: data.subarray(start, start + length), end: start + length };
}

/** Every element inside a construction's content, in order. */
export function readChildren(content: Buffer): DerElement[] {
  const children: DerElement[] = [];
  // Bounded: each element takes at least two bytes.
  for (let offset = 0; offset < content.length;) {
    const child = readElement(content, offset);
    children.push(child);
    offset = child.end;
  }
  return children;
}

/** An element from its tag and content. */
export function element(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const length = body.length;
  const header =
    length < 0x80
      ? Buffer.from([tag, length])
      : length < 0x100
        ? Buffer.from([tag, 0x81, length])
        : length < 0x10000
          ? Buffer.from([tag, 0x82, length >> 8, length & 0xff])
          : Buffer.from([tag, 0x83, length >> 16, (length >> 8) & 0xff, length & 0xff]);
  return Buffer.concat([header, body]);
}

export const Tag = { enumerated: 0x0a, octetString: 0x04, oid: 0x06, sequence: 0x30 } as const;

/** A context-specific constructed tag: [n] in ASN.1. */
export const contextTag = (n: number): number => 0xa0 | n;

/** An OBJECT IDENTIFIER's content bytes from its dotted form (X.690 8.19). */
export function oidBytes(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  if (arcs.length < 2 || arcs.some((arc) => !Number.isSafeInteger(arc) || arc < 0)) throw new DerError(`not an OID: ${dotted}`);
  const bytes = [40 * (arcs[0] as number) + (arcs[1] as number)];
  for (const arc of arcs.slice(2)) {
    const septets = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) septets.unshift((rest & 0x7f) | 0x80);
    bytes.push(...septets);
  }
  return Buffer.from(bytes);
}
