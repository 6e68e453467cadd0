/**
 * Numbered schema migrations. Each runs in its own transaction after an online backup;
 * a migration, once released, is never edited: add a new one.
 */
import { INITIAL_SCHEMA } from './initial-schema.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  INITIAL_SCHEMA,
  {
    version: 2,
    name: 'commit probe',
    // A scratch table for the probe that tells whether commits work again after a failed
    // one (host/store/persistence.ts); its rows never outlive the probing transaction.
    sql: `
      CREATE TABLE commit_probe (
        id INTEGER PRIMARY KEY,
        pad BLOB NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'orphan process groups',
    // Groups of tool calls a dead host left running (host/store/orphan-groups.ts): kept
    // until the next host has tried to kill them, so a second crash does not forget them.
    sql: `
      CREATE TABLE orphan_groups (
        tool_call_id TEXT PRIMARY KEY REFERENCES tool_calls (id),
        pgid INTEGER NOT NULL,
        started_at INTEGER
      );
    `,
  },
  {
    version: 4,
    name: 'web push',
    // Web Push (docs/push.md, host/store/push-records.ts): one subscription per device, the
    // pushes to deliver (kept pending until a 2xx, a give-up or a cancel), a device's last
    // delivery and last error, and the seq up to which events were turned into pushes, so
    // a push is enqueued once, after its event committed, even across a crash. Pushes
    // start from the head at migration: no push for history.
    sql: `
      ALTER TABLE devices ADD COLUMN push_last_delivered_at INTEGER;
      ALTER TABLE devices ADD COLUMN push_last_error TEXT;

      CREATE TABLE push_subscriptions (
        device_id TEXT PRIMARY KEY REFERENCES devices (device_id),
        endpoint TEXT NOT NULL,
        p256dh TEXT NOT NULL,
        auth TEXT NOT NULL,
        expiration_time INTEGER,
        kinds_json TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE push_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        device_id TEXT NOT NULL REFERENCES devices (device_id),
        kind TEXT NOT NULL,
        run_id TEXT,
        approval_id TEXT,
        event_seq INTEGER NOT NULL,
        payload_json TEXT NOT NULL,
        urgency TEXT NOT NULL,
        topic TEXT,
        expires_at INTEGER NOT NULL,
        -- pending | delivered | failed | cancelled
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        last_status INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX push_deliveries_due ON push_deliveries (state, next_attempt_at);
      CREATE INDEX push_deliveries_by_approval ON push_deliveries (approval_id)
        WHERE approval_id IS NOT NULL;

      CREATE TABLE push_cursor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL
      );
      INSERT INTO push_cursor (id, seq) SELECT 1, COALESCE(MAX(seq), 0) FROM events;
    `,
  },
  {
    version: 5,
    name: 'allow rules added from a remote',
    // "Allow like this from now on" (docs/policy.md, host/store/allow-rules.ts): exact
    // command rules per workspace, kept after removal (removed_at) so a card a rule allowed
    // still names it; one active rule per workspace and words. A tool call a rule let
    // through records which (allowed_by_json).
    sql: `
      CREATE TABLE allow_rules (
        id TEXT PRIMARY KEY,
        workspace TEXT NOT NULL,
        words_json TEXT NOT NULL,
        added_by TEXT NOT NULL,
        added_by_name TEXT NOT NULL,
        added_at INTEGER NOT NULL,
        approval_id TEXT NOT NULL,
        removed_at INTEGER,
        removed_by TEXT
      );
      CREATE UNIQUE INDEX allow_rules_active ON allow_rules (workspace, words_json)
        WHERE removed_at IS NULL;

      ALTER TABLE tool_calls ADD COLUMN allowed_by_json TEXT;
    `,
  },
  // Version 6 landed after 7 (both were numbered in parallel): a database applies every
  // version it has not recorded, so one already at 7 still gets 6
  // (host/store/database.ts, test/store/migrations-order.test.ts).
  {
    version: 6,
    name: 'session summaries',
    // Summaries of a session's earliest runs, made when its history no longer fit the
    // model's context (host/store/session-summaries.ts, docs/sessions.md). Each covers the
    // session's runs up to through_run_id (an earlier summary's runs included) and the
    // events from_seq..to_seq; the runs and events themselves are never removed.
    sql: `
      CREATE TABLE session_summaries (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id),
        run_id TEXT NOT NULL REFERENCES runs (id),
        through_run_id TEXT NOT NULL REFERENCES runs (id),
        from_seq INTEGER NOT NULL,
        to_seq INTEGER NOT NULL,
        summary TEXT NOT NULL,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        model TEXT NOT NULL,
        usage_json TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX session_summaries_by_session ON session_summaries (session_id, created_at);
      CREATE INDEX session_summaries_by_run ON session_summaries (run_id);
    `,
  },
  {
    version: 7,
    name: 'mcp server groups',
    // Process groups of stdio MCP servers (host/store/mcp-groups.ts): recorded at spawn,
    // removed once gone, killed at the next start when a host died with them running.
    sql: `
      CREATE TABLE mcp_server_groups (
        pgid INTEGER PRIMARY KEY,
        server TEXT NOT NULL,
        started_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: 'runs by creation',
    // The runs list (newest first, every page and search) is read in this order: without
    // it SQLite sorted every run for each page (the rowid is the index's last column).
    sql: `
      CREATE INDEX runs_by_created ON runs(created_at);
    `,
  },
  {
    version: 9,
    name: 'history rewinds',
    // Times the database was found behind what was known of it (host/store/history-rewinds.ts):
    // a backup put back or a WAL cut. Kept until acknowledged; never removed.
    sql: `
      CREATE TABLE history_rewinds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        detected_at INTEGER NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('mark', 'device')),
        head INTEGER NOT NULL,
        known_head INTEGER NOT NULL,
        device_id TEXT,
        acknowledged_at INTEGER
      );
    `,
  },
  {
    version: 10,
    name: 'session worktrees',
    // A session whose runs work in a git worktree of their own (host/store/worktrees.ts,
    // docs/worktrees.md): where it is, its branch and base, the head and tree the last
    // run's end committed, and what the user answered. `pending_json` holds an answer being
    // applied (git runs outside the transaction): a start finds it and finishes it.
    sql: `
      CREATE TABLE worktrees (
        session_id TEXT PRIMARY KEY REFERENCES sessions (id),
        repository TEXT NOT NULL,
        common_dir TEXT NOT NULL,
        path TEXT NOT NULL,
        branch TEXT NOT NULL,
        base TEXT NOT NULL,
        git_dir TEXT,
        state TEXT NOT NULL,
        head TEXT,
        tree TEXT,
        created_at INTEGER NOT NULL,
        ended_at INTEGER,
        pending_json TEXT
      );
    `,
  },
  {
    version: 11,
    name: 'attachments',
    // Files a remote uploads in chunks (host/store/attachments.ts, docs/attachments.md):
    // chunks 0 … received-1 are in <data>/attachments/<id>.part until the last is checked,
    // then in <data>/attachments/<id>. A run names the complete ones it was given.
    sql: `
      CREATE TABLE attachments (
        id TEXT PRIMARY KEY,
        device_id TEXT NOT NULL,
        name TEXT NOT NULL,
        media_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        total INTEGER NOT NULL,
        received INTEGER NOT NULL,
        sha256 TEXT,
        created_at INTEGER NOT NULL,
        completed_at INTEGER
      );
      CREATE TABLE run_attachments (
        run_id TEXT NOT NULL REFERENCES runs (id),
        attachment_id TEXT NOT NULL REFERENCES attachments (id),
        position INTEGER NOT NULL,
        PRIMARY KEY (run_id, attachment_id)
      );
      CREATE INDEX run_attachments_by_attachment ON run_attachments (attachment_id);
    `,
  },
  {
    version: 12,
    name: 'agent runs',
    // A run an ACP agent works (docs/agents.md): the agent's name from the config, and the
    // agent's own session id once it made or loaded one, so the session's next run (or the
    // same run after a restart) loads it again where the agent can.
    sql: `
      ALTER TABLE runs ADD COLUMN agent TEXT;
      ALTER TABLE runs ADD COLUMN agent_session TEXT;
    `,
  },
  {
    version: 13,
    name: 'attachment last chunk',
    // When an upload last received a chunk (or completed): an unused upload is removed a
    // day after that (host/runtime/upload-sweep.ts), so one still arriving is never cut
    // off mid-way. NULL in rows from before: their start counts.
    sql: `
      ALTER TABLE attachments ADD COLUMN last_chunk_at INTEGER;
    `,
  },
];

/** The schema version this code writes. A database newer than this is refused. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;
