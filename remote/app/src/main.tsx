/**
 * The app's entry: registers the service worker, opens IndexedDB, starts the model and
 * renders the app. A `#pair=` link is taken before anything reads the hash as a route.
 */
import './zod-jitless.js';
import { render } from 'preact';
import { loadQuickEventCheck } from '#client';
import { browserWebSocketFactory, IndexedDbStorage } from '#client/browser';
import { App } from './app.js';
import { openMessageHash } from './logic/push-notification.js';
import { pairLinkAt } from './logic/route.js';
import { registerServiceWorker } from './register-worker.js';
import { AppModel } from './state/app-model.js';
import { notificationSync } from './state/notification-sync.js';
import { keepsUploadJobs } from './state/upload-jobs-key.js';
import './styles.css';
import { errorMessage } from '#protocol';

registerServiceWorker();
// Not needed to show the first screen: chunks of their own, fetched only when they have
// something to do. An on-screen keyboard opens when a field of a touch screen gets focus.
if (window.visualViewport && matchMedia('(any-pointer: coarse)').matches) {
  const followInset = (event: FocusEvent) => {
    if (!opensKeyboard(event.target)) return;
    document.removeEventListener('focusin', followInset);
    void import('./device/keyboard-inset.js').then((module) => module.followKeyboardInset());
  };
  document.addEventListener('focusin', followInset);
}
loadShortcutsAtFirstKey();

/** A field the on-screen keyboard opens for (a button getting focus opens none). */
function opensKeyboard(target: EventTarget | null): boolean {
  if (target instanceof HTMLTextAreaElement) return true;
  if (target instanceof HTMLElement && target.isContentEditable) return true;
  const nonText = ['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'];
  return target instanceof HTMLInputElement && !nonText.includes(target.type);
}

/**
 * The shortcuts arrive with the first key pressed (a phone without a keyboard never
 * fetches them); keys pressed meanwhile are kept and handled once they are bound.
 */
function loadShortcutsAtFirstKey(): void {
  const early: KeyboardEvent[] = [];
  const keep = (event: KeyboardEvent) => {
    // A field's form would submit itself on ⌘/Ctrl+Enter before the shortcut could check
    // its Send button (a busy follow-up stays unsent).
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) event.preventDefault();
    early.push(event);
    if (early.length > 1) return;
    void import('./device/keyboard-shortcuts.js').then((module) => {
      document.removeEventListener('keydown', keep);
      module.bindKeyboardShortcuts();
      for (const key of early) module.handleShortcutKey(key);
    });
  };
  document.addEventListener('keydown', keep);
}

// A notification's click in the service worker shows its screen here (docs/push.md).
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.addEventListener('message', (event) => {
    const hash = openMessageHash(event.data);
    if (hash !== undefined) location.hash = hash;
  });
  navigator.serviceWorker.startMessages();
}

/** A pairing link the app was opened with; removed from the address bar at once. */
function takePairLink(): string | undefined {
  const link = pairLinkAt(location);
  if (link !== undefined) history.replaceState(null, '', `${location.pathname}#/pair`);
  return link;
}

async function boot(root: HTMLElement): Promise<void> {
  const initialLink = takePairLink();
  try {
    const storage = await IndexedDbStorage.open();
    const model = new AppModel(storage, browserWebSocketFactory, () => navigator.onLine);
    model.subscribe(notificationSync());
    window.addEventListener('online', () => model.networkChanged());
    window.addEventListener('offline', () => model.networkChanged());
    window.addEventListener('pagehide', () => model.saveNow());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') {
        model.saveNow();
        return;
      }
      // Back in front, it resumes from its cursors: a backlog of events is on its way.
      void loadQuickEventCheck();
      model.pageShown();
    });
    render(<App model={model} initialLink={initialLink} takePairLink={takePairLink} />, root);
    await model.start();
    // A task whose files were on their way when the page went: it goes on (its own chunk).
    if (await keepsUploadJobs(storage)) {
      void import('./state/upload-jobs.js').then((module) => module.resumeUploadJobs(model));
    }
  } catch (error) {
    render(
      <main class="screen">
        <h1>Tether cannot start</h1>
        <p class="error">{errorMessage(error)}</p>
        <p>This browser may block storage (private mode). Tether keeps its keys in IndexedDB.</p>
      </main>,
      root,
    );
  }
}

const root = document.getElementById('app');
if (root !== null) void boot(root);
