/**
 * A server's limits, as `limits` finds them by probing and as a profile or the lab's configuration
 * states them: the shared vocabulary of the `limits` run kind, the pre-flight doctor of `load` and
 * `--workload`, their store and the report. Which server sets which limit, and how, is in
 * docs/limits.md.
 */

/** Every limit the toolkit probes or plans against. */
export const LIMIT_NAMES = [
  'connections-per-source', // sessions one source address may hold (Fulcrum's max_clients_per_ip)
  'connections-total', // sessions the server accepts in all (ElectrumX's MAX_SESSIONS)
  'subscriptions-per-connection', // scripthash subscriptions one session may hold
  'batch-size', // requests in one JSON-RPC batch (array)
  'request-line-bytes', // bytes of one request line before the server gives up on it
  'history-size', // entries of the largest history served (Fulcrum's max_history, Esplora's --electrum-txs-limit)
  'utxo-count', // outputs of the largest UTXO set served (Esplora's --utxos-limit)
  'response-bytes', // bytes of the largest reply served
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * What the server does to the request (or connection) past a limit. `error`: a JSON-RPC error
 * (code and message as the server sent them); `empty`: an answer with nothing in it and no error
 * (Fulcrum's [] above max_history); `truncated`: part of the answer; `reset`: the connection
 * closed or reset without an answer; `hang`: no answer within the probe's timeout; `refused`: a new
 * connection not accepted at all.
 */
export type PastLimit =
  | { kind: 'error'; code: number | null; message: string }
  | { kind: 'empty' }
  | { kind: 'truncated' }
  | { kind: 'reset' }
  | { kind: 'hang'; afterMs: number }
  | { kind: 'refused' };

/**
 * One limit of one server. `value` is the largest amount served normally, or null when no limit was
 * met up to `triedUpTo` ("none up to N tried"). `recoveryMs`: from the first request past the limit
 * to the first ordinary request answered normally again (null when not measured or never).
 * `source`: measured by `limits`, or stated by the server's configuration (its profile or the lab).
 */
export interface LimitFinding {
  limit: LimitName;
  value: number | null;
  triedUpTo: number;
  past: PastLimit | null;
  recoveryMs: number | null;
  source: 'measured' | 'configured';
  /** Where a configured value comes from (`fulcrum.conf max_clients_per_ip`), or what a probe saw. */
  note?: string;
  /**
   * A per-source limit's exemptions: the source addresses it does not apply to, as IPv4 or IPv6
   * subnets (`127.0.0.1/32`) or single addresses (Fulcrum's subnets_to_exclude_from_per_ip_limits).
   */
  exempt?: string[];
}
