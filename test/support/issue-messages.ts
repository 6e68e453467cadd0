// Setup file of every test (vitest.config.ts): zod's English issue messages, as the host's
// and the CLI's entries set them, so tests that import protocol/ alone read them too.
import { setEnglishIssueMessages } from '../../protocol/index.js';

setEnglishIssueMessages();
