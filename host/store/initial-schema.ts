/**
 * The schema as migration 1 made it: the tables a host's first start creates. Released,
 * it is never edited (migrations.ts adds what came after).
 */
export const INITIAL_SCHEMA = {
  version: 1,
  name: 'initial schema',
  sql: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      workspace TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      active_run_id TEXT
    );

    CREATE TABLE runs (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions(id),
      state TEXT NOT NULL,
      input_json TEXT NOT NULL,
      model TEXT,
      created_at INTEGER NOT NULL,
      started_at INTEGER,
      finished_at INTEGER,
      continues_run_id TEXT REFERENCES runs(id),
      error_json TEXT,
      command_id TEXT,
      created_by TEXT NOT NULL,
      -- The point where the run finished but session.idle was not yet recorded.
      idle_at INTEGER
    );
    CREATE INDEX runs_by_state ON runs(state, created_at);
    CREATE INDEX runs_by_session ON runs(session_id, created_at);

    CREATE TABLE messages (
      id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES runs(id),
      text TEXT NOT NULL,
      reasoning TEXT,
      finish_reason TEXT NOT NULL,
      usage_json TEXT,
      -- Which provider's rules produced native_json: it goes back to that provider only.
      provider TEXT NOT NULL,
      native_json TEXT NOT NULL,
      tool_calls_json TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX messages_by_run ON messages(run_id, created_at);

    CREATE TABLE tool_calls (
      id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES runs(id),
      message_id TEXT NOT NULL REFERENCES messages(id),
      model_call_id TEXT NOT NULL,
      position INTEGER NOT NULL,
      name TEXT NOT NULL,
      input_json TEXT NOT NULL,
      input_digest TEXT NOT NULL,
      state TEXT NOT NULL,
      attempt INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      started_at INTEGER,
      finished_at INTEGER,
      result_json TEXT,
      model_content TEXT,
      output_path TEXT,
      output_bytes INTEGER,
      output_sha256 TEXT,
      output_truncated INTEGER,
      process_group INTEGER
    );
    CREATE INDEX tool_calls_by_run ON tool_calls(run_id, position);
    CREATE INDEX tool_calls_by_state ON tool_calls(state);

    CREATE TABLE approvals (
      id TEXT PRIMARY KEY,
      tool_call_id TEXT NOT NULL UNIQUE REFERENCES tool_calls(id),
      run_id TEXT NOT NULL REFERENCES runs(id),
      state TEXT NOT NULL,
      name TEXT NOT NULL,
      input_json TEXT NOT NULL,
      workspace TEXT NOT NULL,
      input_digest TEXT NOT NULL,
      preview_json TEXT NOT NULL,
      reason TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      decided_by TEXT,
      decided_at INTEGER
    );
    CREATE INDEX approvals_by_state ON approvals(state, expires_at);

    CREATE TABLE artifacts (
      id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES runs(id),
      tool_call_id TEXT REFERENCES tool_calls(id),
      kind TEXT NOT NULL,
      name TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      sha256 TEXT NOT NULL,
      path TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX artifacts_by_run ON artifacts(run_id);

    -- seq: AUTOINCREMENT so a committed seq is never handed out again. An event's id is
    -- evt_<seq>: unique, and inserts stay at the right edge of every index.
    CREATE TABLE events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      type TEXT NOT NULL,
      at INTEGER NOT NULL,
      session_id TEXT,
      run_id TEXT,
      tool_call_id TEXT,
      payload_json TEXT NOT NULL
    );
    CREATE INDEX events_by_session ON events(session_id, seq);
    CREATE INDEX events_by_run ON events(run_id, seq);

    CREATE TABLE commands (
      command_id TEXT PRIMARY KEY,
      op TEXT NOT NULL,
      args_digest TEXT NOT NULL,
      device_id TEXT NOT NULL,
      result_json TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX commands_by_age ON commands(created_at);

    CREATE TABLE devices (
      device_id TEXT PRIMARY KEY,
      device_pk BLOB NOT NULL,
      name TEXT NOT NULL,
      platform TEXT NOT NULL,
      paired_at INTEGER NOT NULL,
      last_seen_at INTEGER,
      revoked_at INTEGER
    );

    CREATE TABLE pairing_offers (
      offer_id TEXT PRIMARY KEY,
      psk BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER,
      failed_attempts INTEGER NOT NULL DEFAULT 0,
      device_id TEXT,
      sas TEXT
    );
  `,
};
