/**
 * host/push/: Web Push (docs/push.md): endpoint checks, what each push says, and durable
 * delivery to the push services.
 */
export { PushDispatcher } from './push-dispatcher.js';
