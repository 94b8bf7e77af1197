/**
 * What a workload is: the requests one wallet sends to sync from scratch, as a script over a
 * WalletSession. Each workload file says which wallet it follows and where in that wallet's public
 * source the behaviour comes from; the code is ours.
 */
import type { ClientOptions } from '../../electrum/client';
import type { WalletChain } from '../../core/wallet-chain';
import type { WalletLine, WalletScript } from '../../core/wallet-line';
import type { WorkloadName } from '../../core/wallet-scan';
import { UserError } from '../../core/user-error';
import type { Findings, HistoryEntry } from '../findings';
import type { WalletSession } from '../session';

export interface Workload {
  /** Its scan's figures in src/core/wallet-scan.ts go by this name. */
  name: WorkloadName;
  /** One line for --help and the report. */
  summary: string;
  /** Requests one wallet keeps in flight at most (batches count as one). */
  maxInFlight: number;
  /** Calls in its largest JSON batch (an array); 1: it sends none (request lines written together are no batch). */
  largestBatch: number;
  /** How it opens its connection: which server.version it sends, if any. */
  client: Pick<ClientOptions, 'clientName' | 'protocolVersion' | 'wire'>;
  /** Whether its connection stays subscribed after the sync (and so can be held for notifications). */
  subscribes: boolean;
  sync(session: WalletSession, wallet: WalletLine, found: Findings): Promise<void>;
}

/** The wallet's script at `index` of `chain`: a file listing fewer than the scan needs is the user's error. */
export function scriptAt(wallet: WalletLine, chain: WalletChain, index: number): WalletScript {
  const s = wallet.chains[chain][index];
  if (!s) {
    throw new UserError(
      `wallet ${wallet.wallet}: the scan needs ${chain} script ${index}, but the wallets file lists ${wallet.chains[chain].length} (gap ${wallet.gap}); regenerate it with a larger gap`,
    );
  }
  return s;
}

/** A history answer, checked for the shape every later step relies on. */
export function historyOf(answer: unknown, scripthash: string): HistoryEntry[] {
  if (!Array.isArray(answer)) throw new Error(`get_history of ${scripthash} is not an array`);
  return answer.map((e) => {
    const x = e as { tx_hash?: unknown; height?: unknown };
    if (typeof x.tx_hash !== 'string' || typeof x.height !== 'number') throw new Error(`get_history of ${scripthash}: malformed entry ${JSON.stringify(e)}`);
    return { tx_hash: x.tx_hash, height: x.height };
  });
}

/** Confirmed transactions of the findings and their heights, for proofs and headers. */
export function confirmedTxs(found: Findings): Array<[string, number]> {
  return [...found.heights()].filter(([, h]) => h > 0);
}

/**
 * A call the wallet can do without (server info, fee estimates): its failure is recorded and the
 * sync goes on. Some servers (Esplora's electrs) close the connection on a method they lack; the
 * wallet connects again, and so do we.
 */
export async function optional(s: WalletSession, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch {
    if (!s.connection.usable) await s.reconnect();
  }
}
