/**
 * The running host's loopback admin API, as the local commands (`tether pair`,
 * `tether devices`, `tether revoke`) use it: found through `<dataDir>/admin.json`, every
 * answer validated.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { Device, isErrorCode, parseJson, parseWith, TetherError } from '../../protocol/index.js';
import { type AdminFile, readAdminFile } from '../server/index.js';
import { describeNetworkFailure, tetherCommand } from '../../common/cli/index.js';

const CreatedOffer = z.looseObject({
  link: z.string(),
  offerId: z.string(),
  expiresAt: z.number().int(),
});
/** A new pairing offer: the link to show (as a QR code) and when it expires. */
export type CreatedOffer = z.infer<typeof CreatedOffer>;

const OfferStatus = z.looseObject({
  offerId: z.string(),
  state: z.enum(['pending', 'paired', 'expired', 'void']),
  expiresAt: z.number().int(),
  sas: z.string().optional(),
  device: z
    .looseObject({ deviceId: z.string(), name: z.string(), platform: z.string() })
    .optional(),
});
/** Where an offer is: still pending, used by a device (with the SAS), expired or void. */
export type OfferStatus = z.infer<typeof OfferStatus>;

const DeviceList = z.looseObject({ devices: z.array(Device) });
const HostHistory = z.looseObject({
  acknowledged: z.number().int().optional(),
  history: z.looseObject({
    rewound: z
      .looseObject({
        detectedAt: z.number(),
        head: z.number().int(),
        knownHead: z.number().int(),
        by: z.enum(['host', 'device']),
        deviceId: z.string().optional(),
        count: z.number().int(),
      })
      .optional(),
  }),
});
/** What the host says of its history (`host.info.history`), and what an acknowledgement cleared. */
export type HostHistory = z.infer<typeof HostHistory>;
const ErrorBody = z.looseObject({
  error: z.looseObject({ code: z.string(), message: z.string() }),
});

/**
 * The data directory beside `dataDir` where a host runs: the demo's (`<data>/demo`, what
 * `tether start --demo` uses), or `<data>` from the demo's. Undefined when none runs there.
 */
export function hostNearby(dataDir: string): string | undefined {
  const near = [join(dataDir, 'demo'), ...(basename(dataDir) === 'demo' ? [dirname(dataDir)] : [])];
  return near.find((dir) => {
    try {
      const file = readAdminFile(dir);
      return file !== undefined && isAlive(file.pid);
    } catch {
      return false;
    }
  });
}

/**
 * The error every command reports when there is no host to ask; when a host runs on the
 * demo's data directory beside it, it names it.
 */
function hostNotRunning(dataDir: string, why: string): TetherError {
  const running = hostNearby(dataDir);
  const elsewhere =
    running === undefined ? '' : `; a host is running for ${running}: pass --data '${running}'`;
  return new TetherError(
    'unavailable',
    `no Tether host is running for data dir ${dataDir} (${why})${elsewhere}, or start one with: ${tetherCommand()} start`,
  );
}

/** Whether process `pid` exists (EPERM: it does, as another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The admin URL to call: a host bound to every address is reached on loopback. */
function loopbackUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}

interface AdminRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Over https: the only root trusted (the host's local CA). */
  ca?: string;
}

/** One exchange with node:http(s), which, unlike fetch, takes a CA to trust. */
function exchange(url: string, init: AdminRequest): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const outgoing = send(
      url,
      {
        method: init.method,
        headers: init.headers,
        ...(init.ca === undefined ? {} : { ca: init.ca }),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** A client of one running host's admin API. */
export class AdminClient {
  private constructor(
    private readonly dataDir: string,
    private readonly file: AdminFile,
  ) {}

  /**
   * Finds the host running on `dataDir`.
   *
   * @throws TetherError `unavailable` when no host runs there (no admin file, or its
   * process is gone).
   */
  static connect(dataDir: string): AdminClient {
    let file: AdminFile | undefined;
    try {
      file = readAdminFile(dataDir);
    } catch {
      throw hostNotRunning(dataDir, 'its admin.json is unreadable');
    }
    if (file === undefined) throw hostNotRunning(dataDir, 'no admin.json');
    if (!isAlive(file.pid)) throw hostNotRunning(dataDir, `process ${file.pid} is gone`);
    return new AdminClient(dataDir, file);
  }

  /** A fresh offer; `origin` is what the link names (default: the host's own choice). */
  async createOffer(origin?: string, signal?: AbortSignal): Promise<CreatedOffer> {
    const body = origin === undefined ? {} : { origin };
    return parseWith(CreatedOffer, await this.call('POST', '/offers', body, signal), 'offer');
  }

  /** Where the offer is now: pending, paired (with the SAS and the device), expired or void. */
  async offerStatus(offerId: string, signal?: AbortSignal): Promise<OfferStatus> {
    const path = `/offers/${encodeURIComponent(offerId)}`;
    return parseWith(OfferStatus, await this.call('GET', path, undefined, signal), 'offer status');
  }

  /** Ends a pending offer so its link no longer pairs; answers where it is now. */
  async revokeOffer(offerId: string, signal?: AbortSignal): Promise<OfferStatus> {
    const path = `/offers/${encodeURIComponent(offerId)}/revoke`;
    return parseWith(OfferStatus, await this.call('POST', path, {}, signal), 'offer status');
  }

  /** Every device ever paired, revoked ones included. */
  async listDevices(signal?: AbortSignal): Promise<Device[]> {
    const result = parseWith(
      DeviceList,
      await this.call('GET', '/devices', undefined, signal),
      'devices',
    );
    return result.devices;
  }

  /** Revokes a device; the host closes its connections at once. */
  async revokeDevice(deviceId: string, signal?: AbortSignal): Promise<void> {
    await this.call('POST', `/devices/${encodeURIComponent(deviceId)}/revoke`, {}, signal);
  }

  /**
   * Renames a device; `commandId` makes a retried request rename once. A name the host
   * refuses (`DeviceName`) is thrown as its `invalid_request`.
   */
  async renameDevice(
    deviceId: string,
    name: string,
    commandId: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const path = `/devices/${encodeURIComponent(deviceId)}/rename`;
    await this.call('POST', path, { name, commandId }, signal);
  }

  /** Whether the database went back in time (`host.info.history`). */
  async history(signal?: AbortSignal): Promise<HostHistory> {
    return parseWith(HostHistory, await this.call('GET', '/history', undefined, signal), 'history');
  }

  /** Acknowledges the rewinds the host shows; the answer says how many. */
  async acknowledgeHistory(signal?: AbortSignal): Promise<HostHistory> {
    const answer = await this.call('POST', '/history/acknowledge', {}, signal);
    return parseWith(HostHistory, answer, 'history');
  }

  /** One call; a refused connection means the host is gone; an error answer is thrown. */
  private async call(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    let response: { status: number; text: string };
    try {
      response = await exchange(`${loopbackUrl(this.file.url)}/admin/api${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.file.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal === undefined ? {} : { signal }),
        ...(this.file.ca === undefined ? {} : { ca: this.file.ca }),
      });
    } catch (error) {
      signal?.throwIfAborted();
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNREFUSED') {
        throw hostNotRunning(this.dataDir, `nothing answers at ${this.file.url}`);
      }
      throw new TetherError('unavailable', describeNetworkFailure(this.file.url, error), {
        cause: error,
      });
    }
    const value = parseJson(response.text, `answer of the host's admin API`);
    if (response.status >= 200 && response.status < 300) return value;
    const failure = ErrorBody.safeParse(value);
    if (!failure.success) {
      throw new TetherError(
        'internal',
        `the host answered ${response.status} to ${method} ${path}`,
      );
    }
    const { code, message } = failure.data.error;
    throw new TetherError(isErrorCode(code) ? code : 'internal', `the host refused: ${message}`, {
      details: { status: response.status, code },
    });
  }
}
