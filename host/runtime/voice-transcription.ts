/**
 * `voice.transcribe` (docs/voice.md): a recording the phone uploaded as an attachment,
 * sent to the host's transcription endpoint; its text is the answer, recorded in the
 * command log (a resent commandId is answered from there, or joins the transcription
 * under way), and the audio is deleted (row and file) unless a run was given it.
 */
import { readFileSync } from 'node:fs';
import { isAudioMediaType, TetherError, type OpArgs, type OpResult } from '../../protocol/index.js';
import type { ModelFailure, Transcriber } from '../model/index.js';
import type { Store } from '../store/index.js';
import type { Actor } from './types.js';

/** What to do about each class of failure, after the endpoint's own words. */
const FIX: Partial<Record<ModelFailure['class'], string>> = {
  auth: 'store its key on the Mac: tether voice set --key-stdin, then restart the host',
  network: 'check that the Mac reaches it (tether doctor checks it)',
  timeout: 'try again, or record less',
  rate_limit: 'wait a moment and try again',
  server: 'try again later',
  bad_request: 'check the model with tether voice show on the Mac',
};

function invalid(path: string, message: string): TetherError {
  return new TetherError('invalid_request', message, { details: { issues: [{ path, message }] } });
}

export class VoiceTranscription {
  private readonly underWay = new Map<string, Promise<OpResult<'voice.transcribe'>>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: Store,
    private readonly transcriber: Transcriber | null,
  ) {}

  /** Whether the host has a transcription endpoint (`host.info.voice.configured`). */
  get configured(): boolean {
    return this.transcriber !== null;
  }

  transcribe(args: OpArgs<'voice.transcribe'>, by: Actor): Promise<OpResult<'voice.transcribe'>> {
    const command = { commandId: args.commandId, op: 'voice.transcribe', args, deviceId: by };
    if (this.store.commands.find(args.commandId) !== undefined) {
      // Answered from the command log (or refused there as another command's id).
      return Promise.resolve(
        this.store.applyCommand(command, () => {
          throw new TetherError('internal', `command ${args.commandId} left the command log`);
        }).result,
      );
    }
    const underWay = this.underWay.get(args.commandId);
    if (underWay !== undefined) return underWay;
    const answer = this.transcribeOnce(args, command).finally(() =>
      this.underWay.delete(args.commandId),
    );
    this.underWay.set(args.commandId, answer);
    return answer;
  }

  /** Abandons the transcriptions under way (the host is stopping). */
  stop(): void {
    this.stopping.abort(new TetherError('unavailable', 'the host is stopping'));
  }

  private async transcribeOnce(
    args: OpArgs<'voice.transcribe'>,
    command: Parameters<Store['applyCommand']>[0],
  ): Promise<OpResult<'voice.transcribe'>> {
    if (this.transcriber === null) {
      throw new TetherError(
        'invalid_state',
        'this host has no transcription endpoint: on the Mac, run tether voice set ' +
          '--base-url URL --model NAME (OpenAI, Groq or a local whisper.cpp server; docs/voice.md)',
        { details: { state: 'voice_not_configured' } },
      );
    }
    const stored = this.store.attachments.get(args.attachmentId);
    // Another device's recording is not this one's to hear, nor to delete.
    if (stored === undefined || stored.deviceId !== command.deviceId) {
      throw invalid(
        'attachmentId',
        `no attachment ${args.attachmentId} from this device on this host: upload the recording with attachment.put first`,
      );
    }
    if (stored.completedAt === null) {
      throw invalid(
        'attachmentId',
        `the recording ${stored.name} is incomplete: ${stored.received} of ${stored.total} chunks arrived`,
      );
    }
    if (!isAudioMediaType(stored.mediaType)) {
      throw invalid(
        'attachmentId',
        `${stored.name} is ${stored.mediaType}, not a recording: voice.transcribe takes audio/webm, audio/mp4, audio/ogg, audio/mpeg or audio/wav`,
      );
    }
    const bytes = readFileSync(this.store.attachments.path(stored.id));
    const outcome = await this.transcriber.transcribe(
      { bytes, name: stored.name, mediaType: stored.mediaType },
      {
        ...(args.language === undefined ? {} : { language: args.language }),
        signal: this.stopping.signal,
      },
    );
    if (outcome.type === 'failed') {
      const { error } = outcome;
      if (error.class === 'aborted') throw new TetherError('unavailable', 'the host is stopping');
      const fix = FIX[error.class];
      throw new TetherError(
        'transcription_failed',
        `the transcription endpoint failed (${error.class}): ${error.message}${fix === undefined ? '' : `; ${fix}`}`,
        {
          details: {
            class: error.class,
            ...(error.status === undefined ? {} : { status: error.status }),
          },
        },
      );
    }
    return this.store.applyCommand(command, () => {
      // A recording a run was given stays with the run; any other is not kept.
      this.store.attachments.discard(stored.id);
      return { text: outcome.text };
    }).result;
  }
}
