/**
 * The composer's microphone (components/voice-button.tsx) as a lazy part: New task and a
 * run's follow-up show it once its chunk came, and neither screen's chunk carries it.
 */
import { lazyScreen } from './lazy-screen.js';

export const VoiceButton = lazyScreen(
  () => import('../components/voice-button.js').then((m) => m.VoiceButton),
  { part: true },
);
