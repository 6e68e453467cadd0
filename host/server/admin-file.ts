/**
 * `<dataDir>/admin.json` (0600): how local commands (`tether pair`, `tether devices`)
 * reach the running host's admin API. Made anew at every start.
 */
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const AdminFile = z.strictObject({
  url: z.string().url(),
  token: z.string().min(32),
  pid: z.number().int().positive(),
  instance: z.string(),
  /** With `--https`: the local CA's certificate (PEM), which local commands trust for `url`. */
  ca: z.string().optional(),
  /** With `--tailscale`: the `https://<machine>.<tailnet>.ts.net` origin `tailscale serve` publishes. */
  tailnetOrigin: z.string().url().optional(),
});
export type AdminFile = z.infer<typeof AdminFile>;

function adminFilePath(dataDir: string): string {
  return join(dataDir, 'admin.json');
}

export function writeAdminFile(dataDir: string, file: AdminFile): void {
  const path = adminFilePath(dataDir);
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(file) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** The running host's admin file, or undefined when there is none (no host running). */
export function readAdminFile(dataDir: string): AdminFile | undefined {
  let text: string;
  try {
    text = readFileSync(adminFilePath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = AdminFile.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function removeAdminFile(dataDir: string): void {
  rmSync(adminFilePath(dataDir), { force: true });
}
