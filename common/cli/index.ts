/**
 * What the host's CLI (`host/cli`) and the remote's (`remote/cli`) share: strict flag
 * parsing and plain-text formatting. Node only; imports nothing of ours.
 */
export { parseCommandArgs, UsageError } from './command-args.js';
export { formatSas, formatTable, formatTime } from './format.js';
