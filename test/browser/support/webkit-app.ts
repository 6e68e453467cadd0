/**
 * What the WebKit test files share: one WebKit (its Xvfb display and WebKitWebDriver) and
 * one app host a file, and the CSS selector of the app's DOM contract.
 */
import { startAppHost, type AppHost } from './app-host.js';
import { launchWebKit, type WebKit } from './webkit.js';

/** `[data-testid="<id>"]`, narrowed by `data-*` attributes. */
export function testId(id: string, data: Record<string, string> = {}): string {
  const attributes = Object.entries(data)
    .map(([name, value]) => `[data-${name}="${value}"]`)
    .join('');
  return `[data-testid="${id}"]${attributes}`;
}

/** WebKit and the app host a file's tests drive it against. */
export interface WebKitApp {
  readonly webkit: WebKit;
  readonly app: AppHost;
  /** Closes WebKit (its browsers, driver and display), then stops the host. */
  close(): Promise<void>;
}

/**
 * Launches WebKit, then the app host with the scripted model (allow WEBKIT_START_MS × 2);
 * a host that fails to start closes WebKit again.
 */
export async function openWebKitApp(): Promise<WebKitApp> {
  const webkit = await launchWebKit();
  let app: AppHost;
  try {
    app = await startAppHost();
  } catch (error) {
    await webkit.close();
    throw error;
  }
  return {
    webkit,
    app,
    close: async () => {
      await webkit.close();
      await app.dispose();
    },
  };
}
