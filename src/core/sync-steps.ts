/**
 * The steps of a wallet's sync, in the order a wallet goes through them, and what one request of a
 * sync records. Workloads tag each request with its step; the store and the report group by them.
 */
import type { ErrorCategory } from './outcomes';

export const SYNC_STEPS = ['handshake', 'server-info', 'headers', 'fees', 'subscribe', 'history', 'transactions', 'proofs', 'block-headers'] as const;
export type SyncStep = (typeof SYNC_STEPS)[number];

export interface RequestSample {
  step: SyncStep;
  method: string;
  /** Calls in the request: 1, or the length of a JSON batch array. */
  items: number;
  /** From the request's write (for the handshake: from the connect) to its whole reply. */
  latencyNs: bigint;
  /** Since the wallet's sync began, at the request's start. */
  offsetNs: bigint;
  bytes: number;
  outcome: 'ok' | ErrorCategory;
  error?: string;
}

