/**
 * Every failure a call can have, as a value with a category (src/core/outcomes.ts): a sample is
 * either ok or carries exactly one of these.
 */
import type { ErrorCategory } from '../core/outcomes';

export { ERROR_CATEGORIES, type ErrorCategory } from '../core/outcomes';

export class ElectrumError extends Error {
  constructor(
    readonly category: ErrorCategory,
    message: string,
    /** The JSON-RPC error code when the server sent an error object. */
    readonly code?: number,
  ) {
    super(message);
    this.name = 'ElectrumError';
  }
}

export function isElectrumError(err: unknown): err is ElectrumError {
  return err instanceof ElectrumError;
}

/**
 * A server that accepted the connection and then did not take part in the handshake: not
 * unreachable, and not to be blamed on the pool that waited for it. The message says what it did.
 */
export class HandshakeSilence extends ElectrumError {
  constructor(message: string) {
    super('timeout', message);
    this.name = 'HandshakeSilence';
  }
}

/** Wraps anything thrown into an ElectrumError, so a sample never loses its failure. */
export function toElectrumError(err: unknown): ElectrumError {
  if (err instanceof ElectrumError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string') return new ElectrumError('disconnect', `${e.code}: ${e.message}`);
  return new ElectrumError('protocol', String((e && e.message) || err));
}
