/**
 * Where a tool call's full output and an artifact live on disk, for the download links
 * the server signs.
 */
import type { Store, StoredArtifact, StoredToolCall } from '../store/index.js';

export class OutputFiles {
  constructor(private readonly store: Store) {}

  /** A tool call with where its full output lives. */
  toolCall(toolCallId: string): StoredToolCall | undefined {
    return this.store.tools.getToolCall(toolCallId);
  }

  /** An artifact with where it lives on disk. */
  artifact(artifactId: string): StoredArtifact | undefined {
    return this.store.tools.getArtifact(artifactId);
  }
}
