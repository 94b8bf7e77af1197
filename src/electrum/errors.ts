/**
 * Every failure a call can have, as a value with a category. Categories are what results are
 * grouped by: a sample is either ok or carries exactly one of these.
 */
export const ERROR_CATEGORIES = [
  'timeout', // no reply within the call's timeout
  'disconnect', // the connection closed (or could not be opened) before the reply
  'protocol', // the server broke JSON-RPC framing: garbage, wrong id, oversized line
  'history-too-large', // the server refuses an address because its history exceeds a limit
  'throttled', // the server rate-limits or sheds load ("excessive resource usage", busy)
  'server-error', // any other JSON-RPC error object
  // An answer smaller than the dataset allows: a shorter confirmed history, or no UTXO / a zero
  // balance where funds are expected. Not a failure of the call but of its content: Fulcrum answers
  // this way above its max_history, and a benchmark must never count it as a fast success.
  'wrong-size',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

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

/** Wraps anything thrown into an ElectrumError, so a sample never loses its failure. */
export function toElectrumError(err: unknown): ElectrumError {
  if (err instanceof ElectrumError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string') return new ElectrumError('disconnect', `${e.code}: ${e.message}`);
  return new ElectrumError('protocol', String((e && e.message) || err));
}
