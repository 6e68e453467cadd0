/**
 * A minimal DER writer (X.690), just what an X.509 certificate needs: sequences, sets,
 * integers, object identifiers, strings, times, bit and octet strings, and tagged values.
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One tag-length-value. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (bytes: Uint8Array): Buffer => tlv(0x04, bytes);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0]));

/** A non-negative INTEGER from its big-endian magnitude (or a small number). */
export function integer(value: Uint8Array | number): Buffer {
  let bytes = typeof value === 'number' ? Buffer.from([value]) : Buffer.from(value);
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  bytes = bytes.subarray(start);
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const body: number[] = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) {
      chunk.unshift((rest & 0x7f) | 0x80);
    }
    body.push(...chunk);
  }
  return tlv(0x06, Buffer.from(body));
}

/** A BIT STRING of whole bytes, or of named bits (bit 0 is the most significant). */
export function bitString(bytes: Uint8Array, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

/** Named bits (e.g. keyUsage) as a DER BIT STRING, trailing zero bits dropped. */
export function namedBits(bits: readonly number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[bit >> 3]! |= 0x80 >> (bit & 7);
  return bitString(bytes, 7 - (highest & 7));
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5). */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  const year = date.getUTCFullYear();
  return year < 2050
    ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(iso, 'ascii'));
}

/** `[n] EXPLICIT`: a constructed context-specific tag around one value. */
export const explicit = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content);

/** `[n] IMPLICIT` over a primitive value's content octets. */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content);

/** The complete TLVs inside a constructed value `der` (one level down). */
export function children(der: Uint8Array): Buffer[] {
  const bytes = Buffer.from(der);
  const read = (at: number): { header: number; length: number } => {
    const first = bytes[at + 1]!;
    if (first < 0x80) return { header: 2, length: first };
    const count = first & 0x7f;
    return { header: 2 + count, length: bytes.readUIntBE(at + 2, count) };
  };
  const outer = read(0);
  const out: Buffer[] = [];
  for (let at = outer.header; at < outer.header + outer.length;) {
    const { header, length } = read(at);
    out.push(bytes.subarray(at, at + header + length));
    at += header + length;
  }
  return out;
}
