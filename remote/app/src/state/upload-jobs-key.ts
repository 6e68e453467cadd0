/**
 * Where the tasks waiting for their files to reach a host are kept (state/upload-jobs.ts):
 * apart, so the first load can look there without carrying the jobs' code.
 */
import type { ClientStorage } from '#client';

export const UPLOAD_JOBS_KEY = 'uploadJobs';

/** Whether `storage` keeps any task for a host: only then is the jobs' chunk loaded. */
export async function keepsUploadJobs(storage: ClientStorage): Promise<boolean> {
  const jobs = await storage.get(UPLOAD_JOBS_KEY);
  return Array.isArray(jobs) && jobs.length > 0;
}
