/**
 * Sparrow (sparrowwallet/sparrow), read in ElectrumServer.java, BatchedElectrumServerRpc.java and
 * PagedBatchRequestBuilder.java: server.version "1.4" (one version, not a range), headers
 * subscription, banner, fee estimates for 1–50 blocks in one batch, the fee histogram and relay
 * fee; then per chain, receive first, JSON batches of at most 100 calls: subscribe every address of
 * the window, get_history of those whose status is not null, blockchain.block.header for every
 * height they were confirmed at, and transaction.get for every transaction; the window then grows
 * to 20 past the last used address and the loop runs again. A batch that times out is sent again,
 * in pages half the size, on a new connection (Sparrow retries a page up to 5 times). Sparrow
 * batches only with server software it knows to take batches (ElectrumX, Fulcrum, electrs,
 * mempool's electrs, Frigate); with any other it sends the same calls one at a time, and so do we
 * (Esplora's electrs closes the connection on a batch).
 *
 * Left out: Sparrow's optional transaction verification (Merkle proofs and header sync) that newer
 * versions add; the releases read here do not ask for proofs.
 */
import type { WalletChain, WalletLine } from '../../core/wallet-line';
import { SCAN } from '../../core/wallet-scan';
import { ElectrumError } from '../../electrum/errors';
import type { BatchItem } from '../../electrum/client';
import type { Findings } from '../findings';
import type { SyncStep, WalletSession } from '../session';
import { historyOf, optional, scriptAt, type Workload } from './workload';

const PAGE_SIZE = 100;
const ATTEMPTS = 5;
const FEE_TARGETS = [1, 2, 3, 4, 5, 10, 25, 50];
const BATCHING_SERVERS = /^(ElectrumX|Fulcrum|electrs\/|mempool-electrs|frigate)/i;

export const sparrowWorkload: Workload = {
  name: 'sparrow',
  summary: 'Sparrow: JSON batches of ≤ 100 (halved after a timeout); subscribe, history, block headers and transactions per window',
  maxInFlight: 1,
  client: { clientName: 'Sparrow', protocolVersion: '1.4' },
  subscribes: true,
  async sync(s, w, found) {
    const pages = new Pager(s, BATCHING_SERVERS.test(s.software));
    await s.call('headers', 'blockchain.headers.subscribe');
    await optional(s, () => s.call('server-info', 'server.banner'));
    await optional(s, () => pages.batch('fees', 'blockchain.estimatefee', FEE_TARGETS.map((n) => [n]), { optional: true }));
    await optional(s, () => s.call('fees', 'mempool.get_fee_histogram'));
    await optional(s, () => s.call('fees', 'blockchain.relayfee'));
    // Sparrow subscribes to headers before anything else; a server that closed the connection
    // since then gets the subscription again on the new one.
    if (s.reconnects > 0) await s.call('headers', 'blockchain.headers.subscribe');
    const headers = new Set<number>();
    for (const chain of ['receive', 'change'] as const) await syncChain(pages, w, chain, found, headers);
  },
};

async function syncChain(pages: Pager, w: WalletLine, chain: WalletChain, found: Findings, headers: Set<number>): Promise<void> {
  let lastUsed = -1;
  let next = 0;
  while (next <= lastUsed + SCAN.sparrow.gap[chain]) {
    const scripts: string[] = [];
    const first = next;
    for (; next <= lastUsed + SCAN.sparrow.gap[chain]; next++) scripts.push(scriptAt(w, chain, next).scripthash);
    const statuses = await pages.batch('subscribe', 'blockchain.scripthash.subscribe', scripts.map((sh) => [sh]));
    for (const sh of scripts) found.subscribed.add(sh);
    const used = scripts.filter((_, i) => statuses[i] !== null);
    statuses.forEach((st, i) => {
      if (st !== null) lastUsed = Math.max(lastUsed, first + i);
    });
    const histories = await pages.batch('history', 'blockchain.scripthash.get_history', used.map((sh) => [sh]));
    const fresh = new Map<string, number>();
    used.forEach((sh, i) => {
      const history = historyOf(histories[i], sh);
      found.histories.set(sh, history);
      for (const e of history) if (!found.rawTxs.has(e.tx_hash)) fresh.set(e.tx_hash, e.height);
    });
    const heights = [...new Set([...fresh.values()].filter((h) => h > 0 && !headers.has(h)))];
    await pages.batch('block-headers', 'blockchain.block.header', heights.map((h) => [h]));
    heights.forEach((h) => headers.add(h));
    const txids = [...fresh.keys()];
    const raws = await pages.batch('transactions', 'blockchain.transaction.get', txids.map((t) => [t]));
    txids.forEach((t, i) => found.rawTxs.set(t, raws[i] as string));
  }
}

/** Batches paged to the current page size, which halves whenever a page times out. */
class Pager {
  private pageSize = PAGE_SIZE;

  constructor(
    private readonly s: WalletSession,
    private readonly batched: boolean,
  ) {}

  /** The results in the order of `params`; an item's error fails the sync unless `optional`. */
  async batch(step: SyncStep, method: string, params: unknown[][], opts: { optional?: boolean } = {}): Promise<unknown[]> {
    if (!this.batched) return this.oneByOne(step, method, params, opts);
    const out: unknown[] = [];
    let at = 0;
    let attempts = 0;
    while (at < params.length) {
      const page = params.slice(at, at + this.pageSize);
      let items: BatchItem[];
      try {
        items = await this.s.batch(step, method, page);
      } catch (err) {
        if (opts.optional) return [];
        throw err;
      }
      const failed = items.find((i): i is { ok: false; error: ElectrumError } => !i.ok);
      if (failed?.error.category === 'timeout' || (failed?.error.category === 'disconnect' && !this.s.connection.usable)) {
        if (++attempts >= ATTEMPTS) throw failed.error;
        this.pageSize = Math.max(1, Math.floor(this.pageSize / 2));
        await this.s.reconnect();
        continue;
      }
      if (failed && !opts.optional) throw failed.error;
      for (const i of items) out.push(i.ok ? i.result : null);
      at += page.length;
      attempts = 0;
    }
    return out;
  }

  private async oneByOne(step: SyncStep, method: string, params: unknown[][], opts: { optional?: boolean }): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const p of params) {
      try {
        out.push(await this.s.call(step, method, p));
      } catch (err) {
        if (!opts.optional) throw err;
        out.push(null);
      }
    }
    return out;
  }
}
