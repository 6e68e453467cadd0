/**
 * A task (or a follow-up) with attachments, sent to its host in two steps: each file's
 * chunks through the outbox (remote/client's uploadAttachment: `attachment.status`, then
 * the chunks the host lacks), then the `run.submit` naming them. The job is kept in
 * IndexedDB until the host answered the task, so a reload or a lost connection resumes it
 * from the chunks the host has; the task keeps one commandId throughout, so the host
 * records it once however many times it goes out.
 */
import { array, object, string, unknown, type infer as Infer } from 'zod/mini';
import { b64u, fromB64u, JsonObject, type OpResult, parseWith, TetherError } from '#protocol';
import {
  type CommandArgs,
  type HostConnection,
  type OutgoingAttachment,
  uploadAttachment,
} from '#client';
import { IndexedDbStorage } from '#client/browser';
import type { AppModel } from './app-model.js';
import { UPLOAD_JOBS_KEY } from './upload-jobs-key.js';

const StoredFile = object({
  attachmentId: string(),
  name: string(),
  mediaType: string(),
  sha256: string(),
  /** The bytes, base64url. */
  data: string(),
});

const UploadJob = object({
  /** The task's commandId, kept from the first try to the last. */
  commandId: string(),
  hostId: string(),
  /** `run.submit`'s args, without the attachments. */
  args: JsonObject,
  files: array(StoredFile),
});
type UploadJob = Infer<typeof UploadJob>;

/** Where a job stands: the file on its way and the chunks the host has of it. */
export interface UploadProgress {
  name: string;
  /** Which file of how many. */
  file: number;
  files: number;
  received: number;
  total: number;
}

let storage: Promise<IndexedDbStorage> | undefined;
/** Changes to the stored list, one after the other (read, change, write). */
let writing: Promise<unknown> = Promise.resolve();
/** The jobs running in this page, by commandId. */
const running = new Map<string, Promise<OpResult<'run.submit'>>>();

function openStorage(): Promise<IndexedDbStorage> {
  storage ??= IndexedDbStorage.open();
  return storage;
}

async function storedJobs(): Promise<UploadJob[]> {
  const value = await (await openStorage()).get(UPLOAD_JOBS_KEY);
  if (value === undefined) return [];
  return parseWith(array(unknown()), value, 'stored uploads').flatMap((entry) => {
    const parsed = UploadJob.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

function changeJobs(change: (jobs: UploadJob[]) => UploadJob[]): Promise<void> {
  const next = writing.then(async () => {
    const jobs = change(await storedJobs());
    await (await openStorage()).set(UPLOAD_JOBS_KEY, jobs);
  });
  writing = next.catch(() => undefined);
  return next;
}

/** Resolves once `connection` is open again; rejects once it stopped for good. */
function reconnected(connection: HostConnection): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      const { status } = connection;
      if (status.state === 'open') resolve();
      else if (status.state === 'stopped') reject(status.error);
      else if (status.state === 'closed') reject(new TetherError('unavailable', 'closed'));
      else return false;
      return true;
    };
    if (settle()) return;
    const off = connection.on((event) => {
      if (event.type === 'status' && settle()) off();
    });
  });
}

/** `step`, again each time the host could not be reached, once it can. */
async function untilReached<T>(connection: HostConnection, step: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof TetherError) || error.code !== 'unavailable') throw error;
      await reconnected(connection);
    }
  }
}

async function runJob(
  connection: HostConnection,
  job: UploadJob,
  progress: (progress: UploadProgress) => void,
): Promise<OpResult<'run.submit'>> {
  try {
    for (const [index, stored] of job.files.entries()) {
      const file: OutgoingAttachment = { ...stored, bytes: fromB64u(stored.data) };
      await untilReached(connection, () =>
        uploadAttachment(connection, file, {
          onProgress: (received, total) =>
            progress({
              name: file.name,
              file: index + 1,
              files: job.files.length,
              received,
              total,
            }),
        }),
      );
    }
    const args = job.args as CommandArgs<'run.submit'>;
    const attachments = job.files.map((file) => file.attachmentId);
    const result = await connection.submit(
      'run.submit',
      { ...args, input: { ...args.input, attachments } },
      { commandId: job.commandId },
    );
    await changeJobs((jobs) => jobs.filter((kept) => kept.commandId !== job.commandId));
    return result;
  } catch (error) {
    // Refused by the host (too large, a digest that does not match): kept, it would be
    // refused again at every start.
    if (!(error instanceof TetherError && error.code === 'unavailable')) {
      await changeJobs((jobs) => jobs.filter((kept) => kept.commandId !== job.commandId));
    }
    throw error;
  } finally {
    running.delete(job.commandId);
  }
}

function start(
  connection: HostConnection,
  job: UploadJob,
  progress: (progress: UploadProgress) => void,
): Promise<OpResult<'run.submit'>> {
  const run = running.get(job.commandId) ?? runJob(connection, job, progress);
  running.set(job.commandId, run);
  return run;
}

/**
 * Stores the task and its files on this device, then sends them; resolves with the
 * host's answer to the task. `progress` hears of each chunk the host has.
 */
export async function submitWithAttachments(
  connection: HostConnection,
  args: CommandArgs<'run.submit'>,
  files: readonly OutgoingAttachment[],
  progress: (progress: UploadProgress) => void = () => undefined,
): Promise<OpResult<'run.submit'>> {
  const job: UploadJob = {
    // A commandId like the outbox's own: 18 random bytes.
    commandId: b64u(crypto.getRandomValues(new Uint8Array(18))),
    hostId: connection.hostId,
    args,
    files: files.map(({ bytes, ...file }) => ({ ...file, data: b64u(bytes) })),
  };
  await changeJobs((jobs) => [...jobs, job]);
  return start(connection, job, progress);
}

/**
 * At start, the jobs an earlier page left (main.tsx calls it only when there are some):
 * each goes on from the chunks its host has, once the model knows the host.
 */
export async function resumeUploadJobs(model: AppModel): Promise<void> {
  for (const job of await storedJobs()) {
    const host = model.view.hosts.find((candidate) => candidate.hostId === job.hostId);
    if (host === undefined) continue;
    start(host.connection, job, () => undefined).catch(() => undefined);
  }
}
