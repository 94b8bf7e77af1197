/**
 * How a unit of work can end. Every scheduled unit ends as exactly one outcome: `ok`, one error
 * category, or (load only) `dropped` when no connection had room for it. Results are grouped by
 * these in every sink, store table and report.
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
