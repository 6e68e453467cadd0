/**
 * A task (or a follow-up) with attachments, sent to its host in two steps: each file's
 * chunks through the outbox (remote/client's uploadAttachment: `attachment.status`, then
 * the chunks the host lacks), then the `run.submit` naming them. The job is kept in
 * IndexedDB until the host answered the task, so a reload or a lost connection resumes it
 * from the chunks the host has; the task keeps one commandId throughout, so the host
 * records it once however many times it goes out. A task the host refuses when nobody waits
 * on its form (sent offline, or resumed after a reload) stays, its text and why it was
 * refused, for the user to read and take back into New task (components/refused-tasks.tsx).
 * A forgotten host's tasks are removed, and at start those of hosts no longer paired.
 */
import { array, nullable, object, optional, string, unknown, type infer as Infer } from 'zod/mini';
import { b64u, fromB64u, JsonObject, type OpResult, parseWith, TetherError } from '#protocol';
import {
  type CommandArgs,
  type HostConnection,
  type OutgoingAttachment,
  uploadAttachment,
} from '#client';
import { IndexedDbStorage } from '#client/browser';
import type { HostView } from './app-view.js';
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
  /** The host refused it: the file it refused (null: the task), and its words. */
  refused: optional(object({ file: nullable(string()), message: string() })),
});
type UploadJob = Infer<typeof UploadJob>;

/**
 * What of the app's model (AppModel, state/app-model.ts, which loads this module) the jobs use: the
 * hosts, and where to tell how many refused tasks there are.
 */
interface JobsModel {
  readonly view: { readonly hosts: readonly HostView[] };
  setRefusedTasks(count: number): void;
}

/** A task the host refused, kept for the user: its text, where, which file and why. */
export interface RefusedTask {
  commandId: string;
  hostId: string;
  text: string;
  /** The run whose conversation it followed up, if it was a follow-up. */
  sessionId: string | undefined;
  file: string | null;
  message: string;
}

/**
 * A refused task's text taken back into New task (`takeDraft`), on its host, or a refused
 * follow-up's into its conversation's composer (`takeFollowUpDraft`).
 */
let draft: { hostId: string; text: string; sessionId: string | undefined } | undefined;

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

/** Tells `model` how many refused tasks this device keeps. */
async function announceRefused(model: JobsModel): Promise<void> {
  model.setRefusedTasks((await storedJobs()).filter((job) => job.refused !== undefined).length);
}

/**
 * `record`: the app's model, when nobody waits on the task's form; a refusal is then kept
 * for the user (text and reason; the files' bytes dropped) and the model told.
 */
async function runJob(
  connection: HostConnection,
  job: UploadJob,
  progress: (progress: UploadProgress) => void,
  record: JobsModel | undefined,
): Promise<OpResult<'run.submit'>> {
  // The file on its way; null once the files are sent and the task goes.
  let sending: string | null = null;
  try {
    for (const [index, stored] of job.files.entries()) {
      sending = stored.name;
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
    sending = null;
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
    // Refused by the host (too large, a digest that does not match): not sent again, it
    // would be refused again at every start; its text stays for the user when unwatched.
    if (!(error instanceof TetherError && error.code === 'unavailable')) {
      const refused = {
        file: sending,
        message: error instanceof Error ? error.message : String(error),
      };
      await changeJobs((jobs) =>
        record === undefined
          ? jobs.filter((kept) => kept.commandId !== job.commandId)
          : jobs.map((kept) =>
              kept.commandId === job.commandId
                ? { ...kept, files: kept.files.map((stored) => ({ ...stored, data: '' })), refused }
                : kept,
            ),
      );
      if (record !== undefined) await announceRefused(record);
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
  record: JobsModel | undefined,
): Promise<OpResult<'run.submit'>> {
  const run = running.get(job.commandId) ?? runJob(connection, job, progress, record);
  running.set(job.commandId, run);
  return run;
}

/**
 * Stores the task and its files on this device, then sends them; resolves with the
 * host's answer to the task. `progress` hears of each chunk the host has. `unwatched`:
 * the app's model when the form will not wait for the answer (the host is not
 * connected), so that a refusal is kept for the user and not only thrown.
 */
export async function submitWithAttachments(
  connection: HostConnection,
  args: CommandArgs<'run.submit'>,
  files: readonly OutgoingAttachment[],
  progress: (progress: UploadProgress) => void = () => undefined,
  unwatched?: JobsModel,
): Promise<OpResult<'run.submit'>> {
  const job: UploadJob = {
    // A commandId like the outbox's own: 18 random bytes.
    commandId: b64u(crypto.getRandomValues(new Uint8Array(18))),
    hostId: connection.hostId,
    args,
    files: files.map(({ bytes, ...file }) => ({ ...file, data: b64u(bytes) })),
  };
  await changeJobs((jobs) => [...jobs, job]);
  return start(connection, job, progress, unwatched);
}

/**
 * At start, the jobs an earlier page left (main.tsx calls it only when there are some):
 * those of hosts no longer paired are removed, refused ones shown, and each other goes on
 * from the chunks its host has.
 */
export async function resumeUploadJobs(model: JobsModel): Promise<void> {
  const paired = (hostId: string) => model.view.hosts.some((host) => host.hostId === hostId);
  await changeJobs((jobs) => jobs.filter((job) => paired(job.hostId)));
  for (const job of await storedJobs()) {
    const host = model.view.hosts.find((candidate) => candidate.hostId === job.hostId);
    if (host === undefined || job.refused !== undefined) continue;
    start(host.connection, job, () => undefined, model).catch(() => undefined);
  }
  await announceRefused(model);
}

/** The host `hostId` was forgotten: its tasks kept on this device go with it. */
export async function forgetHostJobs(hostId: string, model: JobsModel): Promise<void> {
  await changeJobs((jobs) => jobs.filter((job) => job.hostId !== hostId));
  await announceRefused(model);
}

/** The tasks the host refused that this device keeps for the user, oldest first. */
export async function refusedTasks(): Promise<RefusedTask[]> {
  return (await storedJobs()).flatMap((job) => {
    if (job.refused === undefined) return [];
    const args = job.args as CommandArgs<'run.submit'>;
    return [
      {
        commandId: job.commandId,
        hostId: job.hostId,
        text: args.input.text,
        sessionId: args.sessionId,
        ...job.refused,
      },
    ];
  });
}

/**
 * Removes the refused task `commandId` from this device; with `edit`, its text is taken
 * into New task's text box on its host (`takeDraft`).
 */
export async function dropRefused(
  task: RefusedTask,
  model: JobsModel,
  { edit = false } = {},
): Promise<void> {
  if (edit) {
    draft = { hostId: task.hostId, text: task.text, sessionId: task.sessionId };
    for (const watcher of draftWatchers) watcher();
  }
  await changeJobs((jobs) => jobs.filter((job) => job.commandId !== task.commandId));
  await announceRefused(model);
}

/** The text a refused task left for New task, once. */
export function takeDraft(): { hostId: string; text: string } | undefined {
  if (draft?.sessionId !== undefined) return undefined;
  const taken = draft;
  draft = undefined;
  return taken;
}

/** Composers told when a refused follow-up's text is taken back. */
const draftWatchers = new Set<() => void>();

/**
 * Gives `take` the text a refused follow-up left for the composer of its conversation,
 * once: now, or when the user takes it back while this composer is shown. Returns the
 * function that stops watching.
 */
export function watchFollowUpDraft(
  hostId: string,
  sessionId: string,
  take: (text: string) => void,
): () => void {
  const check = () => {
    if (draft?.hostId !== hostId || draft.sessionId !== sessionId) return;
    const { text } = draft;
    draft = undefined;
    take(text);
  };
  check();
  draftWatchers.add(check);
  return () => draftWatchers.delete(check);
}
