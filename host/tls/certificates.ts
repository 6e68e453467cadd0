/**
 * X.509 certificates for the local CA and the host's TLS server (RFC 5280), written with
 * our own DER writer and signed with ECDSA P-256 / SHA-256 by node:crypto.
 */
import {
  createHash,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
  type X509Certificate,
} from 'node:crypto';
import { isIPv4 } from 'node:net';
import {
  boolean,
  explicit,
  implicit,
  integer,
  namedBits,
  octetString,
  oid,
  sequence,
  set,
  tlv,
  bitString,
  children,
  time,
  utf8String,
} from './der.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Apple refuses TLS server certificates valid for longer (iOS 13, macOS 10.15). */
export const MAX_SERVER_VALIDITY_DAYS = 825;
/** What the host issues: under Apple's limit with room for clock differences. */
const SERVER_VALIDITY_DAYS = 820;
const CA_VALIDITY_DAYS = 10 * 365;

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  nameConstraints: '2.5.29.30',
} as const;

/** keyUsage bit numbers (RFC 5280 4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

/**
 * Where the CA may issue: the mDNS `.local` names, `localhost`, loopback and the private
 * address ranges a LAN uses. A leaked CA key cannot vouch for anyone's public site.
 */
const PERMITTED_DNS = ['local', 'localhost'] as const;
const PERMITTED_NETWORKS = [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['169.254.0.0', 16],
  ['::1', 128],
  ['fc00::', 7],
] as const;

/** A key pair and its certificate, both PEM. */
export interface IssuedCertificate {
  keyPem: string;
  certPem: string;
}

/** The DNS names and IP addresses a server certificate names. */
export interface ServerNames {
  dns: string[];
  ips: string[];
}

/** The 4 or 16 bytes of an address in any textual form Node accepts. */
export function ipBytes(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const left = parse(head);
  const right = address.includes('::') ? parse(tail) : [];
  let groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const last = groups.at(-1) ?? '';
  if (isIPv4(last)) {
    const v4 = ipBytes(last);
    groups = [
      ...groups.slice(0, -1),
      v4.readUInt16BE(0).toString(16),
      v4.readUInt16BE(2).toString(16),
    ];
    groups = groups.slice(groups.length - 8);
  }
  const out = Buffer.alloc(16);
  groups.forEach((group, i) => out.writeUInt16BE(parseInt(group, 16), i * 2));
  return out;
}

function mask(bytes: number, prefix: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let bit = 0; bit < prefix; bit++) out[bit >> 3]! |= 0x80 >> (bit & 7);
  return out;
}

/** True when `address` lies in one of the CA's permitted networks. */
export function isPermittedAddress(address: string): boolean {
  const bytes = ipBytes(address);
  return PERMITTED_NETWORKS.some(([network, prefix]) => {
    const base = ipBytes(network);
    if (base.length !== bytes.length) return false;
    const m = mask(base.length, prefix);
    return bytes.every((byte, i) => (byte & m[i]!) === (base[i]! & m[i]!));
  });
}

function name(commonName: string): Buffer {
  return sequence(
    set(sequence(oid(OID.organization), utf8String('Tether'))),
    set(sequence(oid(OID.commonName), utf8String(commonName))),
  );
}

function extension(id: string, critical: boolean, value: Uint8Array): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function newKeyPair(): { privateKey: KeyObject; publicKey: KeyObject; spki: Buffer } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, spki: publicKey.export({ type: 'spki', format: 'der' }) };
}

/** SHA-1 of the SPKI, the customary key identifier (RFC 5280 4.2.1.2 allows any method). */
function keyIdentifier(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f;
  bytes[0]! |= 0x01;
  return bytes;
}

function certificate(tbs: Buffer, signer: KeyObject): string {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const signature = sign('sha256', tbs, signer);
  const der = sequence(tbs, algorithm, bitString(signature));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

function tbsCertificate(fields: {
  issuer: Buffer;
  subject: Buffer;
  spki: Buffer;
  notBefore: Date;
  notAfter: Date;
  extensions: Buffer[];
}): Buffer {
  return sequence(
    explicit(0, integer(2)),
    integer(serialNumber()),
    sequence(oid(OID.ecdsaWithSha256)),
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.spki,
    explicit(3, sequence(...fields.extensions)),
  );
}

/**
 * A self-signed CA: basicConstraints CA:true pathlen 0, keyUsage keyCertSign and
 * cRLSign, and nameConstraints permitting only {@link PERMITTED_DNS} and
 * {@link PERMITTED_NETWORKS}.
 */
export function issueCaCertificate(commonName: string, now = new Date()): IssuedCertificate {
  const keys = newKeyPair();
  const subject = name(commonName);
  const permitted = [
    ...PERMITTED_DNS.map((dns) => sequence(implicit(2, Buffer.from(dns, 'ascii')))),
    ...PERMITTED_NETWORKS.map(([network, prefix]) => {
      const base = ipBytes(network);
      return sequence(implicit(7, Buffer.concat([base, mask(base.length, prefix)])));
    }),
  ];
  const tbs = tbsCertificate({
    issuer: subject,
    subject,
    spki: keys.spki,
    notBefore: new Date(now.getTime() - 60 * 60 * 1000),
    notAfter: new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS),
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true), integer(0))),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(keys.spki))),
      extension(OID.nameConstraints, true, sequence(tlv(0xa0, Buffer.concat(permitted)))),
    ],
  });
  return {
    keyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: certificate(tbs, keys.privateKey),
  };
}

/**
 * A TLS server certificate for `names`, issued by the CA: SAN, EKU serverAuth,
 * keyUsage digitalSignature, valid {@link SERVER_VALIDITY_DAYS} days.
 */
export function issueServerCertificate(
  names: ServerNames,
  ca: { key: KeyObject; cert: X509Certificate },
  now = new Date(),
): IssuedCertificate {
  const keys = newKeyPair();
  // The issuer must be the CA's subject byte for byte: tbsCertificate's sixth field.
  const caSubject = children(children(ca.cert.raw)[0]!)[5]!;
  const caSpki = ca.cert.publicKey.export({ type: 'spki', format: 'der' });
  const commonName = names.dns[0] ?? 'localhost';
  const altNames = [
    ...names.dns.map((dns) => implicit(2, Buffer.from(dns, 'ascii'))),
    ...names.ips.map((ip) => implicit(7, ipBytes(ip))),
  ];
  const tbs = tbsCertificate({
    issuer: caSubject,
    subject: sequence(set(sequence(oid(OID.commonName), utf8String(commonName)))),
    spki: keys.spki,
    notBefore: new Date(now.getTime() - 60 * 60 * 1000),
    notAfter: new Date(now.getTime() + SERVER_VALIDITY_DAYS * DAY_MS),
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature])),
      extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
      extension(OID.subjectAltName, false, sequence(...altNames)),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(keys.spki))),
      extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, keyIdentifier(caSpki)))),
    ],
  });
  return {
    keyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: certificate(tbs, ca.key),
  };
}
