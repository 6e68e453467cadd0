/**
 * What a host takes of a task's attachments (`host.info` limits, docs/attachments.md), and
 * the words refusing files past them on the device, before anything is sent.
 */
import { MAX_RUN_ATTACHMENTS } from '#protocol';
import { formatBytes } from './run-screen-view.js';

/** A host's bounds on attachments, in bytes. */
export interface AttachmentLimits {
  /** One file (`limits.attachmentMaxBytes`). */
  eachMaxBytes: number;
  /** All the files of one task together (`limits.runAttachmentsMaxBytes`). */
  runMaxBytes: number;
}

/** The hosts' defaults, for a host whose limits are not known yet. */
const DEFAULT_LIMITS: AttachmentLimits = {
  eachMaxBytes: 20 * 1024 * 1024,
  runMaxBytes: 50 * 1024 * 1024,
};

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** The bounds `host.info` states (`limits`), each the default where it states none. */
export function attachmentLimitsOf(limits: Record<string, unknown> | undefined): AttachmentLimits {
  return {
    eachMaxBytes: positive(limits?.['attachmentMaxBytes']) ?? DEFAULT_LIMITS.eachMaxBytes,
    runMaxBytes: positive(limits?.['runAttachmentsMaxBytes']) ?? DEFAULT_LIMITS.runMaxBytes,
  };
}

/** A file as the limits weigh it: the bytes that would be sent. */
export interface SizedFile {
  name: string;
  size: number;
}

/**
 * Why these files cannot go to `hostLabel` together, in words naming the file and the
 * bound; undefined when they can.
 */
export function attachmentRefusal(
  files: readonly SizedFile[],
  limits: AttachmentLimits,
  hostLabel: string,
): string | undefined {
  if (files.length > MAX_RUN_ATTACHMENTS) {
    return `A task takes at most ${MAX_RUN_ATTACHMENTS} files: remove ${files.length - MAX_RUN_ATTACHMENTS}.`;
  }
  const big = files.find((file) => file.size > limits.eachMaxBytes);
  if (big !== undefined) {
    return `${big.name} is ${formatBytes(big.size)}: ${hostLabel} takes files of at most ${formatBytes(limits.eachMaxBytes)} each. Remove it, or scale it down.`;
  }
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > limits.runMaxBytes) {
    return `These files come to ${formatBytes(total)}: ${hostLabel} takes at most ${formatBytes(limits.runMaxBytes)} of them for one task. Remove some.`;
  }
  return undefined;
}
