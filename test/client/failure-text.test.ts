import { describe, expect, it } from 'vitest';
import { MODEL_FAILURE_CODES, RUN_FAILURE_CODES } from '../../protocol/failures.js';
import { failureText } from '../../remote/client/index.js';

describe('a failed run in words', () => {
  it('says what failed and what to run on the host for a model server out of reach', () => {
    const text = failureText({
      code: 'network',
      message:
        'Connection error. (fetch failed: connect ECONNREFUSED 127.0.0.1:11434) (after 5 attempts)',
    });
    expect(text.summary).toBe('The host could not reach its model server.');
    expect(text.advice).toContain('tether doctor');
    expect(text.advice).toContain('tether model set --base-url URL --model NAME');
    // The host's words are the detail, not the sentence.
    expect(text.summary).not.toContain('ECONNREFUSED');
  });

  it('has a sentence of its own for every failure code of the wire', () => {
    const summaries = RUN_FAILURE_CODES.map((code) => failureText({ code, message: 'm' }).summary);
    expect(summaries).not.toContain('The run failed.');
    expect(new Set(summaries).size).toBe(RUN_FAILURE_CODES.length);
    for (const code of MODEL_FAILURE_CODES.filter((c) => c !== 'refusal')) {
      expect(failureText({ code, message: 'm' }).advice, code).toBeDefined();
    }
  });

  it('reads a code it does not know, or no error, as a plain failure', () => {
    expect(failureText({ code: 'newer_code', message: 'm' })).toEqual({
      summary: 'The run failed.',
      advice: undefined,
    });
    expect(failureText({ code: 'toString', message: 'm' }).summary).toBe('The run failed.');
    expect(failureText(null).summary).toBe('The run failed.');
  });
});
