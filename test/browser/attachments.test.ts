/**
 * Attachments from the app (issue 28), in Chromium against the real host and the scripted
 * model: a photo chosen through the file input and one pasted into the task reach the
 * model as image_url parts with their Exif (GPS location) gone, the larger one scaled to a
 * long side of 2,048 px; "Keep original" sends the exact bytes; a file past the host's
 * limit is refused on the device and nothing is sent; the run shows its images as
 * thumbnails read back from the host, larger when tapped; a page reloaded while a file is
 * on its way goes on from the chunks the host has, and the task is recorded once; a task
 * kept while the host was down and refused by it after a reload is shown with its file, the
 * host's words and its text, which "Edit as a new task" takes back into New task; the tasks
 * kept for a host go when the host is forgotten, and at start those of hosts not paired.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ChatBody, textTurn, userContents } from '../support/scripted-model-server.js';
import { hasExif, jpegSize, withExifGps } from '../support/exif-jpeg.js';
import { until } from '../support/wait.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, openSubmitForm, pageErrors, pairDevice, visible } from './support/app-page.js';
import { launchChromium, openDevice, saveScreenshot, type Device } from './support/chromium.js';
import { readStore, storeRuns } from './support/store-reader.js';

/** The host's bound on one file here: small, so an oversized one is quick to make. */
const MAX_BYTES = 8 * 1024 * 1024;

let browser: Browser;
let app: AppHost;
let phone: Device;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost({ config: { limits: { attachmentMaxBytes: MAX_BYTES } } });
  phone = await openDevice(browser, 'Attach phone');
  // A page told so (sessionStorage) gets no animation frames, as one in the background.
  await phone.context.addInitScript(() => {
    if (sessionStorage.getItem('test.noFrames') === '1') window.requestAnimationFrame = () => 0;
  });
  await pairDevice(phone, app);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

/** A JPEG of `width`×`height` drawn by the page's canvas, a gradient so it has content. */
async function drawnJpeg(page: Page, width: number, height: number): Promise<Buffer> {
  const bytes = await page.evaluate(
    async ({ width, height }) => {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext('2d')!;
      const gradient = context.createLinearGradient(0, 0, width, height);
      gradient.addColorStop(0, '#3060c0');
      gradient.addColorStop(1, '#f0b030');
      context.fillStyle = gradient;
      context.fillRect(0, 0, width, height);
      const blob = await new Promise<Blob | null>((resolve) =>
        canvas.toBlob(resolve, 'image/jpeg', 0.9),
      );
      return Array.from(new Uint8Array(await blob!.arrayBuffer()));
    },
    { width, height },
  );
  return Buffer.from(bytes);
}

/** Pastes `bytes` as an image file into the field `testId` (a ClipboardEvent with files). */
async function pasteImage(page: Page, testId: string, name: string, bytes: Buffer): Promise<void> {
  await page.evaluate(
    ({ testId, name, bytes }) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], name, { type: 'image/jpeg' }));
      const field = document.querySelector(`[data-testid="${testId}"]`)!;
      field.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
      );
    },
    { testId, name, bytes: Array.from(bytes) },
  );
}

/**
 * Chooses a file of `size` random bytes (zeros with `zeros`) made in the page, through the
 * file input `testId`: bytes this large take too long to pass in from the test.
 */
async function chooseMadeFile(
  page: Page,
  testId: string,
  name: string,
  size: number,
  { zeros = false } = {},
): Promise<void> {
  await page.evaluate(
    ({ testId, name, size, zeros }) => {
      const bytes = new Uint8Array(size);
      for (let at = 0; !zeros && at < size; at += 65_536) {
        crypto.getRandomValues(bytes.subarray(at, Math.min(size, at + 65_536)));
      }
      const data = new DataTransfer();
      data.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
      const input = document.querySelector<HTMLInputElement>(`[data-testid="${testId}"]`)!;
      input.files = data.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    },
    { testId, name, size, zeros },
  );
}

/** A content part of a user message, as the model got it. */
interface ImagePart {
  type?: string;
  image_url?: { url: string };
}

/** The images of the model request whose task is `task`, decoded, in order. */
function imagesSentWith(task: string): { mediaType: string; bytes: Buffer }[] {
  const body = app.model
    .chatBodies()
    .find((candidate: ChatBody) => JSON.stringify(userContents(candidate)).includes(task));
  if (body === undefined) throw new Error(`no model request holds the task ${task}`);
  const parts = userContents(body).flatMap((content): ImagePart[] =>
    Array.isArray(content) ? (content as ImagePart[]) : [],
  );
  return parts.flatMap((part) => {
    if (part.type !== 'image_url' || part.image_url === undefined) return [];
    const match = /^data:([^;]+);base64,(.*)$/.exec(part.image_url.url);
    if (match === null) throw new Error(`not a data URL: ${part.image_url.url.slice(0, 40)}`);
    return [{ mediaType: match[1]!, bytes: Buffer.from(match[2]!, 'base64') }];
  });
}

function storedAttachments(): number {
  return readStore(app.dataDir, (db) =>
    Number((db.prepare('SELECT count(*) AS n FROM attachments').get() as { n: number }).n),
  );
}

/** Waits until the composer shows `count` attachments, each ready to send. */
async function attachmentsReady(page: Page, count: number): Promise<void> {
  await until(
    `${count} attachments ready`,
    () => byTestId(page, 'attachment-item', { ready: 'true' }).count(),
    (ready) => ready === count,
  );
}

/** The tasks this page keeps with their files (state/upload-jobs.ts), as stored. */
const KeptJobs = z.array(z.looseObject({ hostId: z.string(), refused: z.unknown().optional() }));

async function keptJobs(page: Page): Promise<z.infer<typeof KeptJobs>> {
  const stored = await page.evaluate(
    () =>
      new Promise<unknown>((resolve, reject) => {
        const open = indexedDB.open('tether-client');
        open.onerror = () => reject(new Error(String(open.error)));
        open.onsuccess = () => {
          const get = open.result.transaction('kv').objectStore('kv').get('uploadJobs');
          get.onsuccess = () => {
            open.result.close();
            resolve(get.result);
          };
        };
      }),
  );
  return typeof stored === 'string' ? KeptJobs.parse(JSON.parse(stored)) : [];
}

/** The page's errors but the sockets refused while the host was stopped on purpose. */
function errorsBeyondTheStoppedHost(): string[] {
  return phone.errors.filter((error) => !/WebSocket connection to .* failed/.test(error));
}

/** Stops the host and waits until the page knows it is not connected. */
async function stopHost(page: Page): Promise<void> {
  await app.host.stop();
  await until(
    'the page to see the host gone',
    () => byTestId(page, 'host-state', { 'host-id': app.hostId }).getAttribute('data-state'),
    (state) => state !== null && state !== 'live',
    { timeout: 30_000 },
  );
}

describe('attachments from the app', () => {
  it('sends a chosen and a pasted photo scaled and without their location; the run shows them', async () => {
    const { page } = phone;
    const large = withExifGps(await drawnJpeg(page, 3000, 1500));
    const small = withExifGps(await drawnJpeg(page, 400, 300));
    expect(hasExif(large) && hasExif(small)).toBe(true);

    app.model.push(textTurn('I see two pictures.'));
    await openSubmitForm(page, 'Look at these photos');
    await byTestId(page, 'submit-attach').setInputFiles({
      name: 'IMG_0001.JPG',
      mimeType: 'image/jpeg',
      buffer: large,
    });
    await pasteImage(page, 'submit-text', 'image.jpg', small);
    await attachmentsReady(page, 2);
    // Pasting files put no text in the field.
    expect(await byTestId(page, 'submit-text').inputValue()).toBe('Look at these photos');
    const items = byTestId(page, 'attachment-item');
    expect(await items.nth(0).getAttribute('data-name')).toBe('IMG_0001.jpg');
    expect(await items.nth(0).textContent()).toContain('scaled to 2048×1024');
    expect(await items.nth(1).textContent()).toContain('location and other metadata removed');

    await byTestId(page, 'submit-button').click();
    const screen = await visible(byTestId(page, 'run-screen', { state: 'succeeded' }));
    const runId = (await screen.getAttribute('data-run-id')) ?? '';

    const images = imagesSentWith('Look at these photos');
    expect(images.map((image) => image.mediaType)).toEqual(['image/jpeg', 'image/jpeg']);
    expect(images.map((image) => hasExif(image.bytes))).toEqual([false, false]);
    expect(images.map((image) => image.bytes.includes(Buffer.from('Exif')))).toEqual([
      false,
      false,
    ]);
    expect(jpegSize(images[0]!.bytes)).toEqual({ width: 2048, height: 1024 });
    expect(jpegSize(images[1]!.bytes)).toEqual({ width: 400, height: 300 });

    // The run shows both, with thumbnails of the bytes read back from the host.
    const shown = byTestId(page, 'run-attachment');
    await until(
      'two attachments on the run screen',
      () => shown.count(),
      (n) => n === 2,
    );
    expect(await shown.nth(0).getAttribute('data-name')).toBe('IMG_0001.jpg');
    expect(await shown.nth(0).getAttribute('data-size')).toBe(String(images[0]!.bytes.length));
    const thumbs = byTestId(page, 'run-attachment-image');
    await until(
      'both thumbnails decoded',
      () => thumbs.evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).naturalWidth)),
      (widths) => widths.length === 2 && widths[0] === 2048 && widths[1] === 400,
    );
    const box = await (await visible(thumbs)).first().boundingBox();
    expect(box?.width).toBe(56);
    await saveScreenshot(page, 'attachments-run');
    await byTestId(page, 'run-attachment-thumb').first().click();
    await visible(byTestId(page, 'image-viewer'));
    await byTestId(page, 'image-viewer-close').click();
    await until(
      'the viewer closed',
      () => byTestId(page, 'image-viewer').count(),
      (n) => n === 0,
    );
    expect(runId, pageErrors(phone)).not.toBe('');
  }, 120_000);

  it('sends the exact bytes of a photo whose original is kept', async () => {
    const { page } = phone;
    const photo = withExifGps(await drawnJpeg(page, 640, 480));
    app.model.push(textTurn('Kept as it was.'));
    await openSubmitForm(page, 'The original please');
    await byTestId(page, 'submit-attach').setInputFiles({
      name: 'original.jpg',
      mimeType: 'image/jpeg',
      buffer: photo,
    });
    await attachmentsReady(page, 1);
    await byTestId(page, 'attachment-keep-original').check();
    await until(
      'the original size shown',
      () => byTestId(page, 'attachment-item').getAttribute('data-size'),
      (size) => size === String(photo.length),
    );
    await byTestId(page, 'submit-button').click();
    await visible(byTestId(page, 'run-screen', { state: 'succeeded' }));
    const [image] = imagesSentWith('The original please');
    expect(image?.bytes.equals(photo)).toBe(true);
    expect(hasExif(image!.bytes)).toBe(true);
  }, 120_000);

  it('refuses a file past the host limit on the device and sends nothing', async () => {
    const { page } = phone;
    const requestsBefore = app.model.requests.length;
    const storedBefore = storedAttachments();
    await openSubmitForm(page, 'Too big');
    await chooseMadeFile(page, 'submit-attach', 'dump.bin', MAX_BYTES * 1.5, { zeros: true });
    const refusal = await visible(byTestId(page, 'attachment-refusal'));
    expect(await refusal.textContent()).toMatch(
      /^dump\.bin is 12\.0 MB: .+ takes files of at most 8\.0 MB each\. Remove it, or scale it down\.$/,
    );
    expect(await byTestId(page, 'submit-button').isDisabled()).toBe(true);
    // Removed, the task may go.
    await byTestId(page, 'attachment-remove').click();
    await until(
      'the refusal gone',
      () => byTestId(page, 'attachment-refusal').count(),
      (n) => n === 0,
    );
    expect(await byTestId(page, 'submit-button').isEnabled()).toBe(true);
    expect(app.model.requests.length).toBe(requestsBefore);
    expect(storedAttachments()).toBe(storedBefore);
    expect(pageErrors(phone)).toBe('');
  }, 60_000);

  it('goes on with a file on its way after a reload, and records the task once', async () => {
    const { page } = phone;
    const size = 7 * 1024 * 1024 + 5;
    app.model.push(textTurn('Got the recording.'));
    await openSubmitForm(page, 'After the reload');
    await chooseMadeFile(page, 'submit-attach', 'recording.bin', size);
    await attachmentsReady(page, 1);
    await byTestId(page, 'submit-button').click();
    const received = () =>
      readStore(app.dataDir, (db) =>
        db.prepare("SELECT received, total FROM attachments WHERE name = 'recording.bin'").get(),
      ) as { received: number; total: number } | undefined;
    const before = await until(
      'two chunks of the file stored',
      received,
      (row) => row !== undefined && row.received >= 2,
    );
    await page.reload();
    expect(before!.received, 'the upload ended before the reload').toBeLessThan(before!.total);

    const run = await until(
      'the task recorded',
      () => storeRuns(app.dataDir).filter((stored) => stored.text === 'After the reload'),
      (runs) => runs.length > 0 && runs[0]!.state === 'succeeded',
      { timeout: 60_000 },
    );
    expect(run).toHaveLength(1);
    expect(received()).toEqual({ received: 15, total: 15 });
    // The host checked the whole's size and digest when its last chunk came.
    const given = readStore(app.dataDir, (db) =>
      db
        .prepare(
          'SELECT a.name, a.size FROM run_attachments r JOIN attachments a ON a.id = r.attachment_id WHERE r.run_id = ?',
        )
        .all(run[0]!.id),
    );
    expect(given).toEqual([{ name: 'recording.bin', size }]);
    // Nothing kept on the device once the host answered the task.
    await until(
      'the device forgot the task',
      () =>
        page.evaluate(
          () =>
            new Promise<unknown>((resolve) => {
              const open = indexedDB.open('tether-client');
              open.onsuccess = () => {
                const get = open.result.transaction('kv').objectStore('kv').get('uploadJobs');
                get.onsuccess = () => resolve(get.result);
              };
            }),
        ),
      (stored) => stored === '[]',
    );
  }, 120_000);

  it('shows a task the host refused after a reload, with its file, the words and its text', async () => {
    const { page } = phone;
    await byTestId(page, 'nav-runs').click();
    await stopHost(page);
    const task = 'Fix the login page\nIt loops after the second tap.';
    await openSubmitForm(page, task);
    await chooseMadeFile(page, 'submit-attach', 'trace.bin', 1024 * 1024);
    await attachmentsReady(page, 1);
    await byTestId(page, 'submit-button').click();
    await visible(byTestId(page, 'runs-screen'));
    await until(
      'the task kept on the device',
      () => keptJobs(page),
      (jobs) => jobs.length === 1,
    );

    // Meanwhile the host's bound went below the file's size.
    writeFileSync(
      join(dirname(app.dataDir), 'config.json'),
      JSON.stringify({ limits: { attachmentMaxBytes: 512 * 1024 } }),
    );
    await app.host.restart();
    await page.reload();

    const notice = byTestId(page, 'task-refused');
    await visible(notice);
    expect(await notice.textContent()).toContain('refused this task and its file trace.bin');
    expect(await byTestId(page, 'task-refused-reason').textContent()).toContain(
      'trace.bin is 1048576 bytes: this host takes attachments of at most 524288 bytes',
    );
    expect(await byTestId(page, 'task-refused-text').textContent()).toBe(task);
    await saveScreenshot(page, 'task-refused');
    const kept = await keptJobs(page);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.refused).toBeDefined();
    expect(storeRuns(app.dataDir).filter((run) => run.text === task)).toEqual([]);

    // Still there after another reload: nothing typed is lost until the user says so. This
    // page gets no animation frame (as a page in the background), so its view lags behind
    // the model's: the kept task's host must be known from start all the same (the task
    // was dropped as "of a host no longer paired" when that check read a view without it).
    await page.evaluate(() => sessionStorage.setItem('test.noFrames', '1'));
    await page.reload();
    await visible(byTestId(page, 'task-refused'));
    await page.evaluate(() => sessionStorage.removeItem('test.noFrames'));
    await page.reload();
    await visible(byTestId(page, 'task-refused'));

    await byTestId(page, 'task-refused-edit').click();
    await visible(byTestId(page, 'submit-screen'));
    expect(await byTestId(page, 'submit-text').inputValue()).toBe(task);
    expect(await byTestId(page, 'task-refused').count()).toBe(0);
    await until(
      'the refused task removed',
      () => keptJobs(page),
      (jobs) => jobs.length === 0,
    );
    expect(errorsBeyondTheStoppedHost()).toEqual([]);
  }, 180_000);

  it("takes a refused follow-up back into its conversation's composer", async () => {
    const { page } = phone;
    const config = join(dirname(app.dataDir), 'config.json');
    // The host takes the file while the follow-up is written: the device checks its limit.
    writeFileSync(config, JSON.stringify({ limits: { attachmentMaxBytes: MAX_BYTES } }));
    await app.host.restart();
    const [run] = storeRuns(app.dataDir);
    await page.evaluate((hash) => (location.hash = hash), `#/run/${app.hostId}/${run!.id}`);
    await visible(byTestId(page, 'run-screen', { 'run-id': run!.id }));
    await until(
      'the page to see the host live',
      () => byTestId(page, 'host-state', { 'host-id': app.hostId }).getAttribute('data-state'),
      (state) => state === 'live',
      { timeout: 30_000 },
    );
    await stopHost(page);
    const task = 'And check the logout page too';
    await byTestId(page, 'followup-text').fill(task);
    await chooseMadeFile(page, 'followup-attach', 'logout.bin', 1024 * 1024);
    await attachmentsReady(page, 1);
    await byTestId(page, 'followup-submit').click();
    await until(
      'the follow-up kept on the device',
      () => keptJobs(page),
      (jobs) => jobs.length === 1,
    );
    // Meanwhile the host's bound went below the file's size.
    writeFileSync(config, JSON.stringify({ limits: { attachmentMaxBytes: 512 * 1024 } }));
    await app.host.restart();
    await page.reload();

    const notice = await visible(byTestId(page, 'task-refused'));
    expect(await notice.textContent()).toContain('refused this follow-up and its file logout.bin');
    const edit = byTestId(page, 'task-refused-edit');
    expect(await edit.textContent()).toBe('Edit the follow-up');
    await edit.click();
    await visible(byTestId(page, 'run-screen', { 'run-id': run!.id }));
    expect(await byTestId(page, 'followup-text').inputValue()).toBe(task);
    await until(
      'the notice gone',
      () => byTestId(page, 'task-refused').count(),
      (count) => count === 0,
    );
    await until(
      'the refused follow-up removed',
      () => keptJobs(page),
      (jobs) => jobs.length === 0,
    );
    expect(errorsBeyondTheStoppedHost()).toEqual([]);
  }, 180_000);

  it('drops the tasks kept for a host when it is forgotten, and at start those of hosts not paired', async () => {
    const { page } = phone;
    await byTestId(page, 'nav-runs').click();
    await stopHost(page);
    await openSubmitForm(page, 'For a host about to be forgotten');
    await chooseMadeFile(page, 'submit-attach', 'small.bin', 1000);
    await attachmentsReady(page, 1);
    await byTestId(page, 'submit-button').click();
    await visible(byTestId(page, 'runs-screen'));
    await until(
      'the task kept on the device',
      () => keptJobs(page),
      (jobs) => jobs.length === 1,
    );

    await byTestId(page, 'host-forget').click();
    await byTestId(page, 'host-forget-confirm').click();
    await until(
      'the kept task gone with its host',
      () => keptJobs(page),
      (jobs) => jobs.length === 0,
    );

    // A task an older app kept for a host this device no longer has.
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open('tether-client');
          open.onsuccess = () => {
            const job = {
              commandId: 'cmd_left_behind',
              hostId: 'host_not_paired',
              args: { input: { text: 'left behind' } },
              files: [],
            };
            const tx = open.result.transaction('kv', 'readwrite');
            tx.objectStore('kv').put(JSON.stringify([job]), 'uploadJobs');
            tx.oncomplete = () => {
              open.result.close();
              resolve();
            };
            tx.onerror = () => reject(new Error(String(tx.error)));
          };
        }),
    );
    await page.reload();
    await until(
      'the task of an unpaired host removed at start',
      () => keptJobs(page),
      (jobs) => jobs.length === 0,
    );
    expect(errorsBeyondTheStoppedHost()).toEqual([]);
  }, 120_000);
});
