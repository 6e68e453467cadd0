/**
 * Where the tasks waiting for their files to reach a host are kept (state/upload-jobs.ts):
 * apart, so the first load can look there without carrying the jobs' code.
 */
export const UPLOAD_JOBS_KEY = 'uploadJobs';
