/**
 * What the host's CLI (`host/cli`) and the remote's (`remote/cli`) share: strict flag
 * parsing, plain-text formatting and the wording of connection failures. Node only;
 * imports nothing of ours.
 */
export { parseCommandArgs, UsageError } from './command-args.js';
export { tetherCommand } from './command-name.js';
export { formatSas, formatTable, formatTime } from './format.js';
export { describeNetworkFailure } from './network-error.js';
