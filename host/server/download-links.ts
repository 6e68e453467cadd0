/**
 * `download.link` (docs/protocol.md §6.2): single-use links, valid 60 s, to a tool call's full
 * output or an artifact. Each link is a JWT signed with the host's Ed25519 key (jose,
 * EdDSA): issuer the hostId, audience the device that asked, subject the output or
 * artifact, a random jti, and the runtime instance, so links from an earlier start die
 * with it. Used jtis are kept in memory until they would have expired anyway.
 */
import { createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { b64u, TetherError, type OpArgs, type OpResult } from '../../protocol/index.js';
import type { Identity } from '../../pairing/index.js';
import type { Runtime } from '../runtime/index.js';
import { servesDownloads, type RequestOrigin } from './download-origin.js';

/** How long a link may be used. */
const DOWNLOAD_LINK_TTL_MS = 60_000;

/** The route a link points at; the JWT follows the last slash. */
export const DOWNLOAD_PATH = '/v1/download/';

/** A file a redeemed link gives: where it is on disk and what to call it. */
export interface DownloadFile {
  path: string;
  /** The name offered to the browser (Content-Disposition). */
  filename: string;
  contentType: string;
}

export interface DownloadLinksOptions {
  /** Finds devices, tool calls and artifacts; links name its `instance` and die with it. */
  runtime: Runtime;
  identity: Identity;
}

type Subject = { kind: 'output'; toolCallId: string } | { kind: 'artifact'; artifactId: string };

/** The host's Ed25519 key as node:crypto key objects (jose signs and verifies with them). */
function keyObjects(identity: Identity): { privateKey: KeyObject; publicKey: KeyObject } {
  const x = b64u(identity.publicKey);
  const d = b64u(identity.secretKey.subarray(0, 32));
  return {
    privateKey: createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x, d }, format: 'jwk' }),
    publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }),
  };
}

function refused(state: string, message: string): TetherError {
  return new TetherError('invalid_state', message, { details: { state } });
}

/** Issues and redeems download links for one host start. */
export class DownloadLinks {
  private readonly keys: { privateKey: KeyObject; publicKey: KeyObject };
  /** jti → when its link expires; entries past that are dropped as others are redeemed. */
  private readonly used = new Map<string, number>();

  constructor(private readonly options: DownloadLinksOptions) {
    this.keys = keyObjects(options.identity);
  }

  /**
   * A link for `deviceId` on the origin its channel came over.
   *
   * @throws TetherError `invalid_state` on a plain-HTTP LAN origin (`details.state`
   * `insecure_origin`), `not_found` for an unknown tool call, one without output, or an
   * unknown artifact.
   */
  async issue(
    args: OpArgs<'download.link'>,
    deviceId: string,
    origin: RequestOrigin,
  ): Promise<OpResult<'download.link'>> {
    if (!servesDownloads(origin) || origin.url === null) {
      throw refused(
        'insecure_origin',
        'download links are served only over HTTPS or on this computer: page through output.read or artifact.read',
      );
    }
    const subject = this.subjectOf(args);
    this.locate(subject);
    const issuedAt = Math.floor(Date.now() / 1000);
    const expiresAt = (issuedAt + DOWNLOAD_LINK_TTL_MS / 1000) * 1000;
    const token = await new SignJWT({ ins: this.options.runtime.instance, kind: subject.kind })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setIssuer(this.options.identity.id)
      .setAudience(deviceId)
      .setSubject(subject.kind === 'output' ? subject.toolCallId : subject.artifactId)
      .setJti(b64u(randomBytes(16)))
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt / 1000)
      .sign(this.keys.privateKey);
    return { url: `${origin.url}${DOWNLOAD_PATH}${token}`, expiresAt };
  }

  /**
   * Checks a link and spends it: signature, issuer, expiry, this start's instance, an
   * audience device that is paired and not revoked, and a jti not used before. The jti is
   * marked used before the file is located, so a second request fails even mid-stream.
   *
   * @throws TetherError `unauthorized` for a link this host did not sign, `invalid_state`
   * (`details.state` `expired`, `used`, `restarted`), `device_revoked`, or `not_found`.
   */
  async redeem(token: string): Promise<DownloadFile> {
    const now = Date.now();
    for (const [jti, expiresAt] of this.used) if (expiresAt <= now) this.used.delete(jti);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.keys.publicKey, {
        issuer: this.options.identity.id,
        algorithms: ['EdDSA'],
        requiredClaims: ['aud', 'sub', 'jti', 'exp'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw refused('expired', 'this link has expired');
      throw new TetherError('unauthorized', 'not a download link of this host', { cause: error });
    }
    const { aud, sub, jti, exp, ins, kind } = payload;
    if (typeof aud !== 'string' || typeof sub !== 'string' || typeof jti !== 'string') {
      throw new TetherError('unauthorized', 'not a download link of this host');
    }
    if (ins !== this.options.runtime.instance) {
      throw refused('restarted', 'this link is from an earlier start of the host');
    }
    const device = this.options.runtime.devices.find(aud);
    if (device === undefined) throw new TetherError('unauthorized', 'unknown device');
    if (device.revokedAt !== null) throw new TetherError('device_revoked', 'device revoked');
    if (this.used.has(jti)) throw refused('used', 'this link was used already');
    this.used.set(jti, typeof exp === 'number' ? exp * 1000 : now + DOWNLOAD_LINK_TTL_MS);
    const subject: Subject =
      kind === 'artifact' ? { kind, artifactId: sub } : { kind: 'output', toolCallId: sub };
    return this.locate(subject);
  }

  private subjectOf(args: OpArgs<'download.link'>): Subject {
    return 'toolCallId' in args
      ? { kind: 'output', toolCallId: args.toolCallId }
      : { kind: 'artifact', artifactId: args.artifactId };
  }

  private locate(subject: Subject): DownloadFile {
    const { runtime } = this.options;
    if (subject.kind === 'artifact') {
      const artifact = runtime.outputs.artifact(subject.artifactId);
      if (artifact === undefined)
        throw new TetherError('not_found', `no artifact ${subject.artifactId}`);
      return {
        path: artifact.path,
        filename: artifact.name,
        contentType: 'text/plain; charset=utf-8',
      };
    }
    const call = runtime.outputs.toolCall(subject.toolCallId);
    if (call?.output == null) {
      throw new TetherError('not_found', `tool call ${subject.toolCallId} has no output`);
    }
    return {
      path: call.output.path,
      filename: `${call.name}-${call.id}.txt`,
      contentType: 'text/plain; charset=utf-8',
    };
  }
}
