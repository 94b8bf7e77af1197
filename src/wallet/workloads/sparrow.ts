/**
 * Sparrow 2.5.4 (sparrowwallet/sparrow e7ae9cca), read in net/ElectrumServer.java (the connection's
 * opening in ConnectionService, getServerCapability, the history sync), SimpleElectrumServerRpc.java,
 * BatchedElectrumServerRpc.java, PagedBatchRequestBuilder.java, TcpTransport.java and RetryLogic.java.
 *
 * Opening: server.version "Sparrow" ["1.3", "1.4.2"]; server.features (a failure only logged; not
 * to ElectrumPersonalServer); headers subscription; banner; fee estimates for 1–50 blocks (one batch
 * where the server batches, else one call each for 1–25, stopping at a server's error; a failure of
 * either falls back to default rates); the fee histogram; the relay fee. A failed banner, histogram
 * or relay fee fails the connection, and so the sync.
 *
 * Then per chain, receive first, JSON batches of at most 100 calls: subscribe every address of the
 * window, get_history of those whose status is not null, blockchain.block.header for every height
 * they were confirmed at, and transaction.get for every transaction; the window then grows to 20
 * past the last used address and the loop runs again. Which servers get batches is decided from the
 * server.version answer as Sparrow does (sparrowCapability below); others get the same calls one at
 * a time. A header or transaction the server answers with an error is left out, not a failure.
 *
 * A call or page that times out is sent again on the same connection, up to 5 tries (RetryLogic);
 * once a page has, later batches go in pages of 50. A connection the server closed is not opened
 * again within a sync: Sparrow's transport stops reading at the close (TcpTransport.readInputLoop),
 * so every later call fails, and so does the sync. Esplora's electrs closes the connection on
 * server.features, so Sparrow 2.5.4 syncs no wallet there, and neither does this workload.
 *
 * Left out: Sparrow's read timeouts (3, 8, 16, 34 s, plus 50 ms a request: the run's --timeout
 * instead); the 0–2 s random pause before a retry; a page sent again keeps its ids in Sparrow, which
 * takes the first try's late answer for the retry's (here the retry waits for its own); calls beside
 * the sync that depend on settings or the network (fee rates from mempool.space, block summaries,
 * decoy traffic over SSL). Sparrow asks no Merkle proofs: it checks that each transaction hashes to
 * its txid, which costs no call.
 */
import type { WalletChain } from '../../core/wallet-chain';
import type { WalletLine } from '../../core/wallet-line';
import { SCAN } from '../../core/wallet-scan';
import { ElectrumError } from '../../electrum/errors';
import type { Findings } from '../findings';
import type { SyncStep, WalletSession } from '../session';
import { historyOf, scriptAt, type Workload } from './workload';

const PAGE_SIZE = 100;
const ATTEMPTS = 5;
const FEE_TARGETS = [1, 2, 3, 4, 5, 10, 25, 50];
/** SimpleElectrumServerRpc.MAX_TARGET_BLOCKS: one call at a time asks no further than 25 blocks. */
const ONE_BY_ONE_MAX_FEE_TARGET = 25;

/** What Sparrow makes of a server from its server.version answer (ElectrumServer.getServerCapability). */
export interface SparrowCapability {
  batches: boolean;
  /** The furthest fee target asked in a batch. */
  maxFeeTarget: number;
  features: boolean;
}

/**
 * drongo's Version.compareTo: the leading digits and dots, compared part by part (a missing part
 * is 0); null when there are none (Sparrow then treats the server as one it does not know).
 */
function compareVersion(text: string, min: number[]): number | null {
  const v = text.replace(/[^0-9.].*$/s, '');
  if (!/^[0-9]+(\.[0-9]+)*$/.test(v)) return null;
  const parts = v.split('.').map(Number);
  for (let i = 0; i < Math.max(parts.length, min.length); i++) {
    const [a, b] = [parts[i] ?? 0, min[i] ?? 0];
    if (a !== b) return a > b ? 1 : -1;
  }
  return 0;
}

/** Sparrow's reading of a version after `prefix` in the software string: trimmed, then [version, '-suffix']. */
function versionAfter(software: string, prefix: string): [string, string] {
  const rest = software.slice(prefix.length).trim();
  const dash = rest.indexOf('-');
  return dash < 0 ? [rest, ''] : [rest.slice(0, dash), rest.slice(dash)];
}

export function sparrowCapability(softwareAnswer: string): SparrowCapability {
  const software = softwareAnswer.toLowerCase();
  const batching: SparrowCapability = { batches: true, maxFeeTarget: 50, features: true };
  if (software.includes('electrumx') || software.startsWith('frigate') || software.startsWith('cormorant')) return batching;
  if (software.startsWith('electrs/') && (compareVersion(versionAfter(software, 'electrs/')[0], [0, 9, 0]) ?? -1) >= 0) return batching;
  if (software.startsWith('fulcrum') && (compareVersion(versionAfter(software, 'fulcrum')[0], [1, 6, 0]) ?? -1) >= 0) return batching;
  if (software.startsWith('mempool-electrs')) {
    const [version, suffix] = versionAfter(software, 'mempool-electrs');
    const c = compareVersion(version, [3, 1, 0]) ?? -1;
    // 3.1.0 itself only as a release, or as the one dev build named in Sparrow.
    if (c > 0 || (c === 0 && (!suffix.includes('dev') || suffix.includes('dev-249848d')))) return { batches: true, maxFeeTarget: 25, features: true };
  }
  if (software.startsWith('electrumpersonalserver')) return { batches: false, maxFeeTarget: 50, features: false };
  return { batches: false, maxFeeTarget: 50, features: true };
}

export const sparrowWorkload: Workload = {
  name: 'sparrow',
  summary: 'Sparrow 2.5.4: JSON batches of ≤ 100 (50 once a page timed out) to servers it batches with; subscribe, history, block headers and transactions per window',
  maxInFlight: 1,
  largestBatch: PAGE_SIZE,
  client: { clientName: 'Sparrow', protocolVersion: ['1.3', '1.4.2'] },
  subscribes: true,
  async sync(s, w, found) {
    const capability = sparrowCapability(s.software);
    const pages = new Pager(s, capability.batches);
    if (capability.features) await loggedOnly(() => call(s, 'server-info', 'server.features'));
    await call(s, 'headers', 'blockchain.headers.subscribe');
    await call(s, 'server-info', 'server.banner');
    await loggedOnly(() => feeEstimates(s, pages, capability));
    await call(s, 'fees', 'mempool.get_fee_histogram');
    await call(s, 'fees', 'blockchain.relayfee');
    const headers = new Set<number>();
    for (const chain of ['receive', 'change'] as const) await syncChain(pages, w, chain, found, headers);
  },
};

const timedOut = (err: unknown) => err instanceof ElectrumError && err.category === 'timeout';

/** One call as Sparrow's RetryLogic makes it: sent again on the same connection after a timeout, 5 tries in all. */
async function call(s: WalletSession, step: SyncStep, method: string, params: unknown[] = []): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await s.call(step, method, params);
    } catch (err) {
      if (!timedOut(err) || attempt >= ATTEMPTS) throw err;
    }
  }
}

/**
 * A step whose failure Sparrow only logs. The connection is not opened again: after a close, the
 * next call fails as Sparrow's does.
 */
async function loggedOnly(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch {
    /* Sparrow logs it and goes on */
  }
}

/** Fee estimates as Sparrow asks them; a failure is the caller's to pass over (Sparrow falls back to default rates). */
async function feeEstimates(s: WalletSession, pages: Pager, capability: SparrowCapability): Promise<void> {
  if (capability.batches) {
    await pages.batch('fees', 'blockchain.estimatefee', FEE_TARGETS.filter((n) => n <= capability.maxFeeTarget).map((n) => [n]));
    return;
  }
  // One at a time: a server's error ends them (the rest take default rates), a timeout only its own.
  for (const n of FEE_TARGETS.filter((t) => t <= ONE_BY_ONE_MAX_FEE_TARGET)) {
    try {
      await call(s, 'fees', 'blockchain.estimatefee', [n]);
    } catch (err) {
      if (!timedOut(err)) throw err;
    }
  }
}

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
    await pages.batch('block-headers', 'blockchain.block.header', heights.map((h) => [h]), { partial: true });
    heights.forEach((h) => headers.add(h));
    const txids = [...fresh.keys()];
    const raws = await pages.batch('transactions', 'blockchain.transaction.get', txids.map((t) => [t]), { partial: true });
    // One the server would not give is missing from the wallet (Sparrow marks it unfetchable); --verify counts it.
    txids.forEach((t, i) => raws[i] !== null && found.rawTxs.set(t, raws[i] as string));
  }
}

/**
 * Batches in pages of 100, or of 50 once any page has timed out (PagedBatchRequestBuilder halves
 * the configured size once, not again). A page that times out is sent again on the same
 * connection, up to 5 tries in all.
 */
class Pager {
  private hadTimeout = false;

  constructor(
    private readonly s: WalletSession,
    private readonly batched: boolean,
  ) {}

  /**
   * The results in the order of `params`. An item's error fails the batch (Sparrow's
   * JsonRpcBatchException), except with `partial`, where it is null (Sparrow keeps the rest: block
   * headers, transactions).
   */
  async batch(step: SyncStep, method: string, params: unknown[][], opts: { partial?: boolean } = {}): Promise<unknown[]> {
    if (!this.batched) return this.oneByOne(step, method, params);
    const pageSize = this.hadTimeout ? PAGE_SIZE / 2 : PAGE_SIZE;
    const out: unknown[] = [];
    for (let at = 0; at < params.length; at += pageSize) {
      const page = params.slice(at, at + pageSize);
      for (let attempt = 1; ; attempt++) {
        const items = await this.s.batch(step, method, page);
        const failed = items.find((i): i is { ok: false; error: ElectrumError } => !i.ok);
        if (failed && timedOut(failed.error)) {
          this.hadTimeout = true;
          if (attempt < ATTEMPTS) continue;
        }
        if (failed && !(opts.partial && failed.error.category === 'server-error')) throw failed.error;
        for (const i of items) out.push(i.ok ? i.result : null);
        break;
      }
    }
    return out;
  }

  private async oneByOne(step: SyncStep, method: string, params: unknown[][]): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const p of params) out.push(await call(this.s, step, method, p));
    return out;
  }
}
