// One valid sample of every op's args and result, and of every event type's payload.
import type { OpName } from '../../protocol/index.js';
import type { EventType } from '../../protocol/testing.js';

const digest = 'sha256:' + 'a'.repeat(64);
const commandId = 'cmd_0123456789abcdef';
const deviceId = 'u8P30MGO1ZkcbU5Wq4RG3g';
const gitBase = 'b'.repeat(40);
const gitHead = 'c'.repeat(40);
const gitTree = 'd'.repeat(40);
const run = {
  id: 'run_1',
  sessionId: 'ses_1',
  state: 'running',
  input: { text: 'List the files' },
  model: 'deepseek-chat',
  createdAt: 1,
  startedAt: 2,
  finishedAt: null,
  continuesRunId: null,
  error: null,
};
const session = { id: 'ses_1', title: 'List', workspace: '/w', createdAt: 1, activeRunId: 'run_1' };
const toolCall = {
  id: 'tc_1',
  runId: 'run_1',
  name: 'run_command',
  input: { command: 'npm test' },
  inputDigest: digest,
  state: 'waiting_for_approval',
  startedAt: null,
  finishedAt: null,
  result: null,
};
const approval = {
  id: 'apr_1',
  toolCallId: 'tc_1',
  runId: 'run_1',
  state: 'pending',
  name: 'run_command',
  input: { command: 'npm test' },
  workspace: '/w',
  inputDigest: digest,
  preview: { kind: 'command', command: 'npm test', cwd: '/w' },
  reason: 'commands ask',
  expiresAt: 99,
  decidedBy: null,
};
const device = {
  deviceId,
  name: 'Test iPhone',
  platform: 'ios',
  pairedAt: 1,
  lastSeenAt: null,
  revoked: false,
  current: true,
};
const runGet = {
  run,
  messages: [
    {
      id: 'msg_1',
      runId: 'run_1',
      text: 'hi',
      reasoning: null,
      finishReason: 'stop',
      usage: null,
      createdAt: 3,
    },
  ],
  toolCalls: [toolCall],
  approvals: [approval],
  artifacts: [
    {
      id: 'art_1',
      runId: 'run_1',
      toolCallId: 'tc_1',
      kind: 'diff',
      name: 'a.ts.diff',
      bytes: 10,
      sha256: 'b'.repeat(64),
      createdAt: 4,
    },
  ],
  attachments: [
    {
      id: 'att_0123456789abcdef',
      name: 'screen.png',
      mediaType: 'image/png',
      size: 120_000,
      sha256: 'c'.repeat(64),
      createdAt: 1,
    },
  ],
  live: { durable: false, messageId: 'msg_2', text: 'partial', reasoning: '', outputs: [] },
  cursor: 42,
};
const page = { text: 'abc', offset: 0, nextOffset: 3, eof: true, totalBytes: 3, truncated: false };

export const opSamples: Record<OpName, { args: object; result: object }> = {
  'host.info': {
    args: {},
    result: {
      hostId: deviceId,
      name: 'mac-mini',
      version: '0.1.0',
      protocol: 1,
      instance: 'ins_1',
      capabilities: ['runs'],
      models: ['deepseek-chat'],
      model: 'deepseek-chat',
      workspaces: [{ name: 'app', path: '/w' }],
      limits: { maxFrameBytes: 1048576 },
      persistence: { ok: true },
      history: {
        rewound: { detectedAt: 1, head: 12, knownHead: 40, by: 'host', count: 1 },
      },
      voice: { configured: true },
    },
  },
  'run.submit': {
    args: {
      commandId,
      workspace: '/w',
      input: { text: 'List the files', attachments: ['att_0123456789abcdef'] },
      model: 'deepseek-chat',
    },
    result: { runId: 'run_1', sessionId: 'ses_1', state: 'queued', deduplicated: false },
  },
  'run.integrate': {
    args: { commandId, runId: 'run_1', action: 'merge', treeDigest: gitTree },
    result: { state: 'merged', into: 'main', commit: gitHead, how: 'fast_forward' },
  },
  'run.review': {
    args: { runId: 'run_1' },
    result: {
      sessionId: 'ses_1',
      branch: 'tether/1a2b3c4d',
      base: gitBase,
      state: 'active',
      head: gitHead,
      treeDigest: gitTree,
      into: 'main',
      busy: false,
      files: [
        {
          path: 'src/a.ts',
          status: 'modified',
          additions: 1,
          deletions: 1,
          binary: false,
          diff: '@@ -1 +1 @@\n-a\n+b\n',
        },
      ],
      stat: { files: 1, additions: 1, deletions: 1 },
      at: 1,
    },
  },
  'run.cancel': { args: { commandId, runId: 'run_1' }, result: { state: 'cancelling' } },
  'run.continue': {
    args: { commandId, runId: 'run_1', input: { text: 'go on' } },
    result: { runId: 'run_2' },
  },
  'approval.respond': {
    args: {
      commandId,
      approvalId: 'apr_1',
      toolCallId: 'tc_1',
      inputDigest: digest,
      decision: 'approve',
      note: 'ok',
    },
    result: { status: 'approved' },
  },
  'toolcall.reconcile': {
    args: { commandId, toolCallId: 'tc_1', outcome: 'happened', note: 'I checked' },
    result: {},
  },
  subscribe: {
    args: { afterSeq: 10, scope: { runId: 'run_1' } },
    result: { sub: 's1', mode: 'snapshot', cursor: 42, snapshot: runGet },
  },
  unsubscribe: { args: { sub: 's1' }, result: {} },
  'sessions.list': {
    args: { limit: 20, before: 'c1' },
    result: { sessions: [session], next: 'c2' },
  },
  'runs.list': {
    args: { sessionId: 'ses_1', states: ['running', 'queued'], limit: 50 },
    result: { runs: [run] },
  },
  'run.get': { args: { runId: 'run_1' }, result: runGet },
  'run.changes': {
    args: { runId: 'run_1' },
    result: {
      runId: 'run_1',
      files: [
        {
          path: 'a.ts',
          writes: [
            {
              toolCallId: 'tc_1',
              tool: 'edit_file',
              state: 'succeeded',
              action: 'edited',
              beforeSha256: 'a'.repeat(64),
              afterSha256: 'b'.repeat(64),
              linesAdded: 1,
              linesRemoved: 1,
              diff: { artifactId: 'art_1', bytes: 10, text: '-a\n+b\n' },
              finishedAt: 5,
            },
          ],
        },
      ],
      commands: [
        {
          toolCallId: 'tc_2',
          command: 'npm test',
          cwd: null,
          state: 'failed',
          exitCode: 1,
          signal: null,
          summary: 'npm test: exit 1 in 2.0 s',
          errorCode: 'exit_nonzero',
          durationMs: 2000,
          output: { bytes: 120, truncated: false },
          reconciled: null,
          startedAt: 6,
          finishedAt: 8,
        },
      ],
    },
  },
  'run.usage': {
    args: { runId: 'run_1' },
    result: {
      run: {
        messages: 2,
        reported: 2,
        inputTokens: 1200,
        cachedInputTokens: 800,
        outputTokens: 90,
        reasoningTokens: null,
        cost: { usd: 0.0012, estimate: true },
      },
      session: {
        messages: 3,
        reported: 2,
        inputTokens: 1200,
        cachedInputTokens: 800,
        outputTokens: 90,
        reasoningTokens: null,
      },
    },
  },
  'output.read': { args: { toolCallId: 'tc_1', offset: 0, limit: 4096 }, result: page },
  'artifact.read': { args: { artifactId: 'art_1', offset: 0, limit: 262144 }, result: page },
  'download.link': {
    args: { artifactId: 'art_1' },
    result: { url: 'https://mac.local:8443/v1/download/x', expiresAt: 60000 },
  },
  'devices.list': { args: {}, result: { devices: [device] } },
  'device.revoke': { args: { commandId, deviceId }, result: {} },
  'device.rename': { args: { commandId, deviceId, name: 'Anna’s iPhone' }, result: {} },
  'push.subscribe': {
    args: {
      commandId,
      subscription: {
        endpoint: 'https://web.push.apple.com/QGZ1c2g',
        expirationTime: null,
        keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
      },
      kinds: ['approval', 'run_ended', 'review'],
    },
    result: {},
  },
  'push.unsubscribe': { args: { commandId }, result: {} },
  'push.test': {
    args: { commandId },
    result: { status: 'failed', httpStatus: 403, error: 'the push service refused it (403)' },
  },
  'policy.rules': {
    args: {},
    result: {
      rules: [
        {
          id: 'cfg_0',
          source: 'config',
          words: ['git', 'status'],
          workspace: null,
          addedBy: null,
          addedAt: null,
          removable: false,
        },
        {
          id: 'rul_1',
          source: 'app',
          words: ['git', 'log', '--oneline'],
          workspace: '/w',
          addedBy: { deviceId, name: 'Test iPhone' },
          addedAt: 1_700_000_000_000,
          removable: true,
        },
      ],
    },
  },
  'policy.rule_add': {
    args: { commandId, approvalId: 'apr_1', toolCallId: 'tc_1', inputDigest: digest },
    result: { ruleId: 'rul_1', status: 'approved' },
  },
  'policy.rule_remove': { args: { commandId, ruleId: 'rul_1' }, result: {} },
  'attachment.put': {
    args: {
      commandId,
      attachmentId: 'att_0123456789abcdef',
      index: 0,
      total: 1,
      name: 'notes.txt',
      mediaType: 'text/plain',
      size: 5,
      data: 'aGVsbG8',
      sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    },
    result: { attachmentId: 'att_0123456789abcdef', received: 1, total: 1, complete: true },
  },
  'attachment.status': {
    args: { attachmentId: 'att_0123456789abcdef' },
    result: { attachmentId: 'att_0123456789abcdef', received: 0, total: 24, complete: false },
  },
  'voice.transcribe': {
    args: { commandId, attachmentId: 'att_0123456789abcdef', language: 'en' },
    result: { text: 'Fix the login button on the settings page.' },
  },
  'attachment.read': {
    args: { attachmentId: 'att_0123456789abcdef', index: 0 },
    result: { attachmentId: 'att_0123456789abcdef', index: 0, total: 1, data: 'aGVsbG8' },
  },
};

export const eventSamples: Record<EventType, object> = {
  'session.created': {
    title: 'List',
    workspace: '/w',
    worktree: { branch: 'tether/1a2b3c4d', base: gitBase },
  },
  'run.queued': {
    input: { text: 'go' },
    model: 'deepseek-chat',
    commandId,
    by: deviceId,
    continuesRunId: 'run_0',
  },
  'run.started': {},
  'model.request': { index: 0, model: 'deepseek-chat' },
  'model.retry': { attempt: 2, maxAttempts: 5, delayMs: 1000, reason: 'rate_limit', status: 429 },
  'message.completed': {
    messageId: 'msg_1',
    text: 'hi',
    reasoning: 'thinking',
    finishReason: 'tool_calls',
    usage: { promptTokens: 10 },
  },
  'tool.proposed': { name: 'read_file', input: { path: 'a' }, inputDigest: digest },
  'tool.approval_requested': {
    approvalId: 'apr_1',
    name: 'write_file',
    input: { path: 'a', content: 'x', expectedSha256: null },
    workspace: '/w',
    inputDigest: digest,
    reason: 'writes ask',
    preview: { kind: 'write', path: 'a', diff: '+x', baseSha256: null, newSha256: 'c'.repeat(64) },
    expiresAt: 99,
  },
  'tool.approval_resolved': { approvalId: 'apr_1', decision: 'denied', by: 'expiry' },
  'tool.started': { attempt: 1 },
  'tool.finished': {
    status: 'succeeded',
    summary: 'exit 0',
    exitCode: 0,
    signal: null,
    bytes: 12,
    truncated: false,
  },
  'tool.reconciled': { outcome: 'did_not_happen', by: deviceId, note: 'no file' },
  'artifact.created': {
    artifactId: 'art_1',
    kind: 'diff',
    name: 'a.diff',
    bytes: 3,
    sha256: 'd'.repeat(64),
  },
  'run.cancel_requested': { by: deviceId },
  'run.finished': { state: 'failed', reason: 'model', error: { code: 'server', message: '500' } },
  'session.idle': {},
  'run.result': {
    branch: 'tether/1a2b3c4d',
    base: gitBase,
    head: gitHead,
    treeDigest: gitTree,
    committed: true,
    files: [{ path: 'src/a.ts', status: 'modified', additions: 1, deletions: 1, binary: false }],
    stat: { files: 1, additions: 1, deletions: 1 },
  },
  'run.integrated': {
    action: 'merge',
    treeDigest: gitTree,
    by: deviceId,
    into: 'main',
    commit: gitHead,
    how: 'fast_forward',
  },
  'session.compacted': {
    summaryId: 'sum_1',
    coversSeq: [3, 41],
    tokensBefore: 5000,
    tokensAfter: 1200,
    summary: 'The user asked for a list of files; it was made.',
    model: 'deepseek-chat',
    usage: { promptTokens: 900 },
  },
  'device.paired': { deviceId, name: 'Test iPhone' },
  'device.revoked': { deviceId, name: 'Test iPhone' },
  'device.renamed': { deviceId, name: 'Anna’s iPhone', previousName: 'iPhone', by: deviceId },
  'host.started': { instance: 'ins_2', interruptedRuns: ['run_1'] },
  'host.stopping': { instance: 'ins_2' },
  'policy.rule_added': {
    ruleId: 'rul_1',
    rule: ['git', 'log', '--oneline'],
    workspace: '/w',
    by: deviceId,
    byName: 'Test iPhone',
    approvalId: 'apr_1',
  },
  'policy.rule_removed': {
    ruleId: 'rul_1',
    rule: ['git', 'log', '--oneline'],
    workspace: '/w',
    by: deviceId,
  },
};

/** A whole event of `type` around its sample payload (or `payload`), as a frame carries it. */
export function sampleEvent(type: EventType, payload: unknown = eventSamples[type]) {
  return {
    v: 1,
    seq: 12,
    id: 'evt_12',
    type,
    at: 1_700_000_000_000,
    sessionId: 'ses_1',
    runId: 'run_1',
    toolCallId: null,
    payload,
  };
}
