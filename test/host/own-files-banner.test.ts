/**
 * Issue 23: `tether start` warns when a workspace holds Tether's own data directory (a
 * home folder as workspace): tools are denied it, but a command the user approves is not.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHost } from '../../host/cli/start-host.js';
import { tempDir } from '../support/temp-dir.js';

async function bannerOf(workspace: string, dataDir: string): Promise<string[]> {
  process.env['TETHER_KEY_STORE'] = 'file';
  process.env['TETHER_LOG_LEVEL'] = 'error';
  const lines: string[] = [];
  const host = await startHost(
    ['--data', dataDir, '--port', '0', '--workspace', workspace],
    (line) => lines.push(line),
  );
  await host.stop();
  return lines;
}

describe('the start banner', () => {
  it('warns when a workspace holds the data directory', async () => {
    await using dir = tempDir('tether-own-files-');
    const workspace = join(dir.path, 'home');
    mkdirSync(workspace);
    const lines = await bannerOf(workspace, join(workspace, '.tether'));
    expect(lines).toContain(
      `warning: the workspace ${workspace} holds Tether's data directory ${join(workspace, '.tether')}: tools never read or write it, but a command you approve could; keep it outside your workspaces`,
    );
  });

  it('says nothing of it when the data directory is elsewhere', async () => {
    await using dir = tempDir('tether-own-files-');
    const workspace = join(dir.path, 'ws');
    mkdirSync(workspace);
    const lines = await bannerOf(workspace, join(dir.path, 'data'));
    expect(lines.filter((line) => line.includes("Tether's data directory"))).toEqual([]);
  });
});
