/**
 * Attachments a remote uploads in chunks (docs/attachments.md): one row each, and one file
 * `<data>/attachments/<id>` that the chunks are written into at their offsets, fsynced
 * before the row that counts them commits. The row says how many chunks arrived and,
 * once the last was checked, the digest of the whole. Runs name the complete ones.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  rmSync,
  statfsSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Statement } from 'better-sqlite3';
import { BOUND_LIMIT, cachedPrepare, type Db } from './database.js';

export interface StoredAttachment {
  id: string;
  deviceId: string;
  name: string;
  mediaType: string;
  size: number;
  /** Chunks it travels in; `received` of them are stored (0 … received-1). */
  total: number;
  received: number;
  /** Hex SHA-256 of the whole, once complete. */
  sha256: string | null;
  createdAt: number;
  completedAt: number | null;
}

interface AttachmentRow {
  id: string;
  device_id: string;
  name: string;
  media_type: string;
  size: number;
  total: number;
  received: number;
  sha256: string | null;
  created_at: number;
  completed_at: number | null;
}

function toAttachment(row: AttachmentRow): StoredAttachment {
  return {
    id: row.id,
    deviceId: row.device_id,
    name: row.name,
    mediaType: row.media_type,
    size: row.size,
    total: row.total,
    received: row.received,
    sha256: row.sha256,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/** Bytes read at a time when a whole file is hashed. */
const HASH_BUFFER_BYTES = 1024 * 1024;

function fsyncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class Attachments {
  private readonly prepare: (sql: string) => Statement;

  constructor(
    db: Db,
    /** `<data>/attachments`, made by the store. */
    readonly dir: string,
  ) {
    this.prepare = cachedPrepare(db);
  }

  /** The file of attachment `id` (its ids are checked to be file-name safe on the wire). */
  path(id: string): string {
    return join(this.dir, id);
  }

  /** Where a run's attachments that are read as files are put (host/runtime). */
  runFolder(runId: string): string {
    return join(dirname(this.dir), 'run-attachments', runId);
  }

  /** The runs of `sessionId` that were given attachments. */
  runsWithAttachments(sessionId: string): string[] {
    const rows = this.prepare(
      `SELECT DISTINCT r.run_id AS runId FROM run_attachments r JOIN runs ON runs.id = r.run_id
         WHERE runs.session_id = ?`,
    ).all(sessionId) as { runId: string }[];
    return rows.map((row) => row.runId);
  }

  get(id: string): StoredAttachment | undefined {
    const row = this.prepare('SELECT * FROM attachments WHERE id = ?').get(id) as
      AttachmentRow | undefined;
    return row && toAttachment(row);
  }

  insert(attachment: Omit<StoredAttachment, 'received' | 'sha256' | 'completedAt'>): void {
    this.prepare(
      `INSERT INTO attachments (id, device_id, name, media_type, size, total, received, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
    ).run(
      attachment.id,
      attachment.deviceId,
      attachment.name,
      attachment.mediaType,
      attachment.size,
      attachment.total,
      attachment.createdAt,
    );
  }

  /**
   * Writes one chunk at `offset` of the attachment's file and fsyncs it (a new file's
   * folder too), before the row that counts it commits. A chunk written again after a
   * crash lands on the same bytes.
   */
  writeChunk(id: string, offset: number, bytes: Uint8Array): void {
    const path = this.path(id);
    const fd = openSync(path, offset === 0 ? 'w' : 'r+', 0o600);
    try {
      writeSync(fd, bytes, 0, bytes.length, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (offset === 0) fsyncFolder(this.dir);
  }

  /** Bytes free for this user on the disk the attachments are kept on. */
  freeBytes(): number {
    const stats = statfsSync(this.dir);
    return stats.bavail * stats.bsize;
  }

  /** `length` bytes of the attachment's file from `offset` (fewer where the file ends). */
  readChunk(id: string, offset: number, length: number): Buffer {
    const buffer = Buffer.alloc(length);
    const fd = openSync(this.path(id), 'r');
    try {
      let read = 0;
      while (read < length) {
        const got = readSync(fd, buffer, read, length - read, offset + read);
        if (got === 0) break;
        read += got;
      }
      return buffer.subarray(0, read);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The SHA-256 (hex) of the file's first `size` bytes, cutting off anything past them (a
   * chunk written before a crash and not counted).
   */
  digestOf(id: string, size: number): string {
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(Math.min(HASH_BUFFER_BYTES, Math.max(size, 1)));
    const fd = openSync(this.path(id), 'r+');
    try {
      ftruncateSync(fd, size);
      for (let offset = 0; offset < size;) {
        const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - offset), offset);
        if (read === 0) break;
        hash.update(buffer.subarray(0, read));
        offset += read;
      }
    } finally {
      closeSync(fd);
    }
    return hash.digest('hex');
  }

  /** `received` chunks kept, the last at `at`. */
  setReceived(id: string, received: number, at: number): void {
    this.prepare('UPDATE attachments SET received = ?, last_chunk_at = ? WHERE id = ?').run(
      received,
      at,
      id,
    );
  }

  complete(id: string, received: number, sha256: string, at: number): void {
    this.prepare(
      'UPDATE attachments SET received = ?, sha256 = ?, completed_at = ?, last_chunk_at = ? WHERE id = ?',
    ).run(received, sha256, at, at, id);
  }

  /** Removes an attachment no run names: its row, then its file. */
  discard(id: string): void {
    this.prepare(
      'DELETE FROM attachments WHERE id = ? AND NOT EXISTS (SELECT 1 FROM run_attachments WHERE attachment_id = ?)',
    ).run(id, id);
    if (this.get(id) === undefined) rmSync(this.path(id), { force: true });
  }

  /** Records that `runId` was given `ids`, in that order. */
  linkRun(runId: string, ids: readonly string[]): void {
    const insert = this.prepare(
      'INSERT OR IGNORE INTO run_attachments (run_id, attachment_id, position) VALUES (?, ?, ?)',
    );
    ids.forEach((id, position) => insert.run(runId, id, position));
  }

  /** Whether any run was given attachment `id`. */
  givenToARun(id: string): boolean {
    return (
      this.prepare('SELECT 1 FROM run_attachments WHERE attachment_id = ? LIMIT 1').get(id) !==
      undefined
    );
  }

  /** `length` bytes of attachment `id`'s file from `offset`. */
  readBytes(id: string, offset: number, length: number): Buffer {
    const buffer = Buffer.alloc(length);
    const fd = openSync(this.path(id), 'r');
    try {
      let read = 0;
      while (read < length) {
        const n = readSync(fd, buffer, read, length - read, offset + read);
        if (n === 0) break;
        read += n;
      }
      return buffer.subarray(0, read);
    } finally {
      closeSync(fd);
    }
  }

  /** The attachments `runId` was given, in order. */
  listOfRun(runId: string): StoredAttachment[] {
    const rows = this.prepare(
      `SELECT a.* FROM run_attachments r JOIN attachments a ON a.id = r.attachment_id
         WHERE r.run_id = ? ORDER BY r.position`,
    ).all(runId) as AttachmentRow[];
    return rows.map(toAttachment);
  }

  /**
   * Ids of attachments no run names whose last chunk (or start) came before `before`, the
   * least recent first and at most `limit`: uploads left unfinished, and files sent but
   * never used. An upload still receiving chunks is never among them.
   */
  listUnused(before: number, limit: number): string[] {
    const rows = this.prepare(
      `SELECT id FROM attachments WHERE COALESCE(last_chunk_at, created_at) < ?
         AND NOT EXISTS (SELECT 1 FROM run_attachments WHERE attachment_id = attachments.id)
         ORDER BY COALESCE(last_chunk_at, created_at) ${BOUND_LIMIT}`,
    ).all(before, limit) as { id: string }[];
    return rows.map((row) => row.id);
  }
}
