/**
 * Reading a tool call's full output or an artifact from its host: pages and a download link.
 */
import { MAX_READ_BYTES, type OpResult } from '#protocol';
import type { HostView } from '../state/app-view.js';

/** What is read: a tool call's output or an artifact. */
export type ReadTarget = { toolCallId: string } | { artifactId: string };

/**
 * `read(offset)`: the page of `target` from `offset` (256 KiB at most, through
 * `output.read` / `artifact.read`); `link()`: its `download.link` URL.
 */
export function useReader(host: HostView, target: ReadTarget) {
  return {
    read: (offset: number): Promise<OpResult<'output.read'>> => {
      const range = { offset, limit: MAX_READ_BYTES };
      return 'toolCallId' in target
        ? host.connection.request('output.read', { toolCallId: target.toolCallId, ...range })
        : host.connection.request('artifact.read', { artifactId: target.artifactId, ...range });
    },
    link: () => host.connection.request('download.link', target),
  };
}
