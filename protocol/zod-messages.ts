/**
 * zod's English issue messages ("Invalid input: expected string, received number"), which
 * zod/mini does not load by itself.
 */
import { z } from 'zod/mini';
import { en } from 'zod/locales';

/**
 * Makes every zod issue read as zod classic writes it, in the messages the host sends and
 * the CLI prints: the host's and the CLI's entries call it, and the tests. The app does
 * not, so its first load carries none of the 2.7 KB: an issue in the browser keeps its
 * code, path and expected type, and its message reads "Invalid input".
 */
export function setEnglishIssueMessages(): void {
  z.config(en());
}
