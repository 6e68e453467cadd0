/**
 * The host's local CA and TLS server certificate (`tether start --https`), kept in
 * `<dataDir>/tls/`: made once, reused across starts, the server certificate re-issued
 * when the names or addresses it must cover change or it expires within 30 days.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ipBytes,
  issueCaCertificate,
  issueServerCertificate,
  type IssuedCertificate,
  type ServerNames,
} from './certificates.js';
import { caMobileconfig } from './mobileconfig.js';

/** A certificate this close to its end is replaced at start. */
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/** What `tether start --https` serves with, and what it offers devices to trust. */
export interface LocalTls {
  /** The server's private key and certificate, PEM, for `https.createServer`. */
  key: string;
  cert: string;
  /** The CA certificate, PEM (`/ca.pem`; the CLI trusts it for loopback calls). */
  caPem: string;
  /** The iOS profile holding the CA (`/ca.mobileconfig`). */
  mobileconfig: string;
  /** The names the server certificate covers. */
  names: ServerNames;
  /** What this start did: made a new CA, issued a new server certificate. */
  caCreated: boolean;
  serverIssued: boolean;
}

export interface LoadLocalTlsOptions {
  dataDir: string;
  names: ServerNames;
  /** Shown in the CA's name and the profile (`Tether Local CA <hostName>`). */
  hostName: string;
  now?: Date;
}

export function tlsDir(dataDir: string): string {
  return join(dataDir, 'tls');
}

function readPair(dir: string, name: string): IssuedCertificate | undefined {
  try {
    return {
      keyPem: readFileSync(join(dir, `${name}.key.pem`), 'utf8'),
      certPem: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    };
  } catch {
    return undefined;
  }
}

/** Writes a key (0600) then its certificate, each by rename so no reader sees half a file. */
function writePair(dir: string, name: string, pair: IssuedCertificate): void {
  for (const [file, text, mode] of [
    [`${name}.key.pem`, pair.keyPem, 0o600],
    [`${name}.pem`, pair.certPem, 0o644],
  ] as const) {
    const temp = join(dir, `${file}.${process.pid}.tmp`);
    writeFileSync(temp, text, { mode });
    renameSync(temp, join(dir, file));
  }
}

/** The certificate when it parses, matches its key and lives beyond the renewal margin. */
function usable(pair: IssuedCertificate | undefined, now: Date): X509Certificate | undefined {
  if (pair === undefined) return undefined;
  try {
    const cert = new X509Certificate(pair.certPem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return undefined;
    if (Date.parse(cert.validTo) - now.getTime() < RENEW_BEFORE_MS) return undefined;
    return cert;
  } catch {
    return undefined;
  }
}

/** The SAN entries a certificate names, comparable with {@link wantedNames}. */
function certificateNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .map((entry) =>
      entry.startsWith('IP Address:')
        ? `ip:${ipBytes(entry.slice('IP Address:'.length)).toString('hex')}`
        : `dns:${entry.replace(/^DNS:/, '').toLowerCase()}`,
    )
    .sort();
}

function wantedNames(names: ServerNames): string[] {
  return [
    ...names.dns.map((dns) => `dns:${dns.toLowerCase()}`),
    ...names.ips.map((ip) => `ip:${ipBytes(ip).toString('hex')}`),
  ].sort();
}

/**
 * Loads the CA and server certificate from `<dataDir>/tls/`, making what is missing,
 * unusable or about to expire. Private keys are written 0600 in a 0700 folder.
 */
export function loadOrCreateLocalTls(options: LoadLocalTlsOptions): LocalTls {
  const now = options.now ?? new Date();
  const dir = tlsDir(options.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });

  let caPair = readPair(dir, 'ca');
  let ca = usable(caPair, now);
  const caCreated = ca === undefined;
  if (ca === undefined || caPair === undefined) {
    const day = now.toISOString().slice(0, 10);
    caPair = issueCaCertificate(`Tether Local CA ${options.hostName} ${day}`, now);
    writePair(dir, 'ca', caPair);
    ca = new X509Certificate(caPair.certPem);
  }

  let serverPair = readPair(dir, 'server');
  const current = caCreated ? undefined : usable(serverPair, now);
  const fits =
    current !== undefined &&
    current.checkIssued(ca) &&
    current.verify(ca.publicKey) &&
    certificateNames(current).join() === wantedNames(options.names).join();
  if (!fits || serverPair === undefined) {
    serverPair = issueServerCertificate(
      options.names,
      { key: createPrivateKey(caPair.keyPem), cert: ca },
      now,
    );
    writePair(dir, 'server', serverPair);
  }
  return {
    key: serverPair.keyPem,
    cert: serverPair.certPem,
    caPem: caPair.certPem,
    mobileconfig: caMobileconfig(ca, options.hostName),
    names: options.names,
    caCreated,
    serverIssued: !fits,
  };
}
