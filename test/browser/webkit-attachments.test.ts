/**
 * Issue 28 in WebKit, Safari's engine (WebKitGTK's MiniBrowser through WebKitWebDriver):
 * a photo with its GPS location in Exif, chosen through New task's file input (set from a
 * script, which is what WebDriver can drive) and pasted into the task's text (a paste
 * event holding the file, as a copied screenshot gives), reaches the scripted model twice
 * as image_url parts scaled to a long side of 2,048 px with no Exif left, and the run
 * shows its thumbnails read back from the host. One flow: WebKit is slow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasExif, jpegSize, withExifGps } from '../support/exif-jpeg.js';
import { textTurn, userContents } from '../support/scripted-model-server.js';
import type { AppHost } from './support/app-host.js';
import { WEBKIT_START_MS, type WebKit, type WebKitPage } from './support/webkit.js';
import { openWebKitApp, testId, type WebKitApp } from './support/webkit-app.js';

/** The flow's budget: many steps of up to WEBKIT_STEP_MS each under a loaded machine. */
const TEST_MS = 300_000;

let opened: WebKitApp;
let webkit: WebKit;
let app: AppHost;
let phone: WebKitPage;

beforeAll(async () => {
  opened = await openWebKitApp();
  ({ webkit, app } = opened);
}, WEBKIT_START_MS * 2);

afterAll(async () => opened?.close());

describe('attachments in WebKit', () => {
  it(
    'sends a chosen and a pasted photo scaled and without their location, and shows their thumbnails',
    async () => {
      phone = await webkit.newPage();
      await phone.goto(`${app.localhostOrigin}/v1/health`);
      await phone.evaluate('localStorage.setItem("tether.deviceName", "WebKit Photographer");');
      const offer = await app.host.offer(app.localhostOrigin);
      await phone.goto(offer.link);
      await phone.waitVisible(testId('pair-sas'));
      await phone.click(testId('pair-done'));
      await phone.waitVisible(testId('runs-screen'));

      // A JPEG drawn by WebKit's own canvas, its Exif GPS segment put in here.
      const drawn = await phone.evaluate(`
        const canvas = document.createElement('canvas');
        canvas.width = 2600;
        canvas.height = 1300;
        const context = canvas.getContext('2d');
        const gradient = context.createLinearGradient(0, 0, 2600, 1300);
        gradient.addColorStop(0, '#208040');
        gradient.addColorStop(1, '#e0e0f0');
        context.fillStyle = gradient;
        context.fillRect(0, 0, 2600, 1300);
        const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.9));
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let text = '';
        for (const byte of bytes) text += String.fromCharCode(byte);
        return btoa(text);
      `);
      const photo = withExifGps(Buffer.from(String(drawn), 'base64'));
      expect(hasExif(photo)).toBe(true);

      app.model.push(textTurn('A green picture.'));
      await phone.click(testId('nav-submit'));
      await phone.type(testId('submit-text'), 'What is in this photo?');
      await phone.evaluate(
        `
        const text = atob(arguments[1]);
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        const data = new DataTransfer();
        data.items.add(new File([bytes], 'IMG_0002.JPG', { type: 'image/jpeg' }));
        const input = document.querySelector(arguments[0]);
        input.files = data.files;
        input.dispatchEvent(new Event('change', { bubbles: true }));
        `,
        testId('submit-attach'),
        photo.toString('base64'),
      );
      await phone.waitVisible(testId('attachment-item', { ready: 'true' }));
      expect(await phone.text(testId('attachment-item'))).toContain('scaled to 2048×1024');
      // The same photo pasted into the task's text, as a screenshot copied on the phone.
      await phone.evaluate(
        `
        const text = atob(arguments[1]);
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        const data = new DataTransfer();
        data.items.add(new File([bytes], 'image.jpg', { type: 'image/jpeg' }));
        document.querySelector(arguments[0]).dispatchEvent(
          new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
        );
        `,
        testId('submit-text'),
        photo.toString('base64'),
      );
      await phone.waitFor(
        'both attachments ready',
        'return document.querySelectorAll(arguments[0]).length === 2;',
        testId('attachment-item', { ready: 'true' }),
      );
      expect(
        await phone.evaluate(
          `return document.querySelector(arguments[0]).value;`,
          testId('submit-text'),
        ),
      ).toBe('What is in this photo?');
      await phone.click(testId('submit-button'));
      await phone.waitVisible(testId('run-screen', { state: 'succeeded' }));

      const body = app.model
        .chatBodies()
        .find((candidate) => JSON.stringify(userContents(candidate)).includes('this photo'));
      const parts = (userContents(body!)[0] ?? []) as {
        type: string;
        image_url?: { url: string };
      }[];
      const urls = parts.flatMap((part) =>
        part.image_url === undefined ? [] : [part.image_url.url],
      );
      expect(urls).toHaveLength(2);
      for (const url of urls) {
        expect(url.startsWith('data:image/jpeg;base64,')).toBe(true);
        const sent = Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64');
        expect(hasExif(sent)).toBe(false);
        expect(sent.includes(Buffer.from('Exif'))).toBe(false);
        expect(jpegSize(sent)).toEqual({ width: 2048, height: 1024 });
      }

      // The run's thumbnail: the bytes read back from the host, decoded by WebKit.
      await phone.waitFor(
        'the thumbnail decoded',
        'const img = document.querySelector(arguments[0]); return img !== null && img.naturalWidth === 2048;',
        testId('run-attachment-image'),
      );
      const box = await phone.box(testId('run-attachment-image'));
      expect(box.width).toBe(56);
      await phone.screenshot('webkit-attachment-run');
    },
    TEST_MS,
  );
});
