/**
 * How a unit of work can end. Every scheduled unit ends as exactly one outcome: `ok`, one error
 * category, or (load only) `dropped` when no connection had room for it, `cut-short` when it was
 * sent and the run ended before its reply or its timeout, `not-sent` when the run stopped before
 * it was due. Results are grouped by these in every sink, store table and report.
 */
export const ERROR_CATEGORIES = [
  'timeout', // no reply within the call's timeout
  'disconnect', // the connection closed (or could not be opened) before the reply
  'protocol', // the server broke JSON-RPC framing: garbage, wrong id, oversized line
  'history-too-large', // the server refuses an address because its history exceeds a limit
  'throttled', // the server rate-limits or sheds load ("excessive resource usage", busy)
  'server-error', // any other JSON-RPC error object
  'unsupported', // the server has no such method (its error says so, as its profile reads it)
  // An answer smaller than the dataset allows: a shorter confirmed history, or no UTXO / a zero
  // balance where funds are expected. Not a failure of the call but of its content: Fulcrum answers
  // this way above its max_history, and a benchmark must never count it as a fast success.
  'wrong-size',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

/**
 * Outcomes where the server sent something back: a rate "achieved" counts these and only these.
 * A timeout or a closed connection is no answer, whatever the generator's clock says.
 */
export function isAnswered(outcome: string): boolean {
  return ANSWERED.has(outcome);
}

/** Units answered among counts by outcome. */
export function answeredOf(byOutcome: Iterable<[string, number]>): number {
  let answered = 0;
  for (const [outcome, n] of byOutcome) if (isAnswered(outcome)) answered += n;
  return answered;
}

// A set: the load engine asks once per request.
const ANSWERED: ReadonlySet<string> = new Set(['ok', ...ERROR_CATEGORIES.filter((c) => c !== 'timeout' && c !== 'disconnect')]);
