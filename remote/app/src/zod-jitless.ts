/**
 * Imported first by main.tsx, before any module that builds a schema: zod decides at a
 * schema's construction whether to compile it with `new Function`, and its probe for
 * that is a CSP violation the browser reports on every load (the CSP allows no eval).
 */
import { z } from 'zod/mini';

z.config({ jitless: true });
