/**
 * The errno code (`ENOENT`, `EACCES`…) of a Node file-system error.
 */

/** The `code` of a Node system error, or undefined for anything else. */
export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}
