/**
 * The microphone's words and choices (remote/app/src/logic/voice-note.ts): the recording
 * type by what the browser supports, the media type and name the host is told, the timer,
 * a transcript added to what was typed, and each microphone failure in words.
 */
import { describe, expect, it } from 'vitest';
import {
  elapsedText,
  microphoneProblem,
  recordingName,
  recordingType,
  uploadMediaType,
  withTranscript,
} from '../../remote/app/src/logic/voice-note.js';

describe('voice note', () => {
  it('records Opus in WebM on Chromium, AAC in MP4 on Safari, else what the browser has', () => {
    const chromium = new Set(['audio/webm;codecs=opus', 'audio/webm']);
    const safari = new Set(['audio/mp4']);
    expect(recordingType((type) => chromium.has(type))).toBe('audio/webm;codecs=opus');
    expect(recordingType((type) => safari.has(type))).toBe('audio/mp4');
    expect(recordingType(() => false)).toBeUndefined();
  });

  it('tells the host the media type without parameters, and names the file by it', () => {
    expect(uploadMediaType('audio/webm;codecs=opus')).toBe('audio/webm');
    expect(uploadMediaType('audio/mp4')).toBe('audio/mp4');
    expect(recordingName('audio/webm')).toBe('voice-note.webm');
    expect(recordingName('audio/mp4')).toBe('voice-note.m4a');
  });

  it('shows the time as m:ss', () => {
    expect(elapsedText(0)).toBe('0:00');
    expect(elapsedText(1999)).toBe('0:01');
    expect(elapsedText(75_000)).toBe('1:15');
  });

  it('adds a transcript after what was typed, on a line of its own', () => {
    expect(withTranscript('', '  Fix it. ')).toBe('Fix it.');
    expect(withTranscript('Look at this:  \n', 'Fix it.')).toBe('Look at this:\nFix it.');
    expect(withTranscript('Typed', '   ')).toBe('Typed');
  });

  it('says what to do when the microphone is refused or missing', () => {
    expect(microphoneProblem('NotAllowedError')).toContain('Microphone access was denied');
    expect(microphoneProblem('NotFoundError')).toBe('No microphone was found on this device.');
    expect(microphoneProblem('WeirdError')).toContain('WeirdError');
  });
});
