/**
 * Electrum 4.8.1 (spesmilo/electrum) syncing a wallet restored from its xpub, read in interface.py,
 * network.py, synchronizer.py, verifier.py, address_synchronizer.py, wallet.py and util.py (and the
 * aiorpcx session it runs on), and held to the real client on the wire
 * (test/wire-conformance.test.ts records both through one proxy):
 * - its connection: server.version "electrum/4.8.1" with the range 1.4–1.6, written as its padded
 *   transport writes (src/electrum/padded-writes.ts: requests wait for 1 KiB or 1 s, each write
 *   padded to a power of two), at most 50 requests in flight at first, more as answers come
 *   (adaptive-slots.ts);
 * - server.features; then together the headers subscription and fee estimates for 1008, 144, 25,
 *   10, 5 and 2 blocks; once the tip is in, together the banner, donation address, peers, relay fee
 *   (mempool.get_info on 1.6, blockchain.relayfee before) and fee histogram, and the wallet's jobs:
 * - the synchronizer subscribes every address the wallet has (20 receive, 10 change), all at once in
 *   shuffled order; a status that is not null brings a get_history, and its transactions not yet
 *   asked a transaction.get each, all at once; addresses the wallet adds are subscribed at its next
 *   100-ms tick;
 * - the verifier, every 100 ms, asks a get_merkle for each confirmed transaction of the histories
 *   not asked yet;
 * - the wallet, every 100 ms, adds addresses until the last 20 receive (10 change) ones hold none
 *   whose transactions are in, confirmed ones verified — so a window widens only after proofs.
 * Each job holds at most 100 requests at once. The sync is over when nothing waits: every request
 * answered, every proof in, no address to add.
 *
 * Not followed: Electrum widens past an address only once one of its transactions is 3 blocks
 * deep (and never past one with only mempool transactions); this workload widens past any used
 * address whose transactions are in, so what a sync asks stays what a wallets file states. Among
 * the lab's wallets that changes only the 400-transaction one, whose last 14 change addresses
 * were paid in the chain's last two blocks (Electrum would not look at 4 of them yet).
 *
 * Left out: the header download (a wallet that ran before has its headers), other servers (it
 * runs with --oneserver), the pings Electrum sends as noise (one with probability 0.2 at a random
 * moment after a new tip) and fee estimates renewed after 60 s. Electrum does not use a server
 * without server.features (Esplora's electrs closes the connection on it); this workload connects
 * again and goes on, so such servers can still be measured.
 */
import { randomUUID } from 'node:crypto';
import { seededShuffle } from '../../core/random';
import { SCAN } from '../../core/wallet-scan';
import { Slots } from '../../core/slots';
import type { WalletChain } from '../../core/wallet-chain';
import type { WalletLine } from '../../core/wallet-line';
import type { Findings } from '../findings';
import type { SyncStep, WalletSession } from '../session';
import { AdaptiveSlots } from './adaptive-slots';
import { historyOf, optional, scriptAt, type Workload } from './workload';

const GAP = SCAN.electrum.gap;
const FEE_TARGETS = [1008, 144, 25, 10, 5, 2];
const TICK_MS = 100;
/** Each job's own cap (NetworkJobOnDefaultServer's semaphore). */
const JOB_IN_FLIGHT = 100;

export const electrumWorkload: Workload = {
  name: 'electrum',
  summary:
    'Electrum 4.8.1: padded writes (1 KiB or 1 s), ≤ 50 in flight and growing; subscribe the window, history per used address, every transaction, a Merkle proof per transaction every 100 ms; the window widens once proofs are in',
  // aiorpcx's ceiling: the workload's own cap (from 50 up) is what binds.
  maxInFlight: 250,
  largestBatch: 1,
  client: { clientName: 'electrum/4.8.1', wire: 'electrum-wallet' },
  subscribes: true,
  sync: (s, w, found) => new ElectrumSync(s, w, found).run(),
};

type Job = 'synchronizer' | 'verifier' | null;

class ElectrumSync {
  private readonly inFlight = new AdaptiveSlots();
  private readonly jobs = { synchronizer: new Slots(JOB_IN_FLIGHT), verifier: new Slots(JOB_IN_FLIGHT) };
  private tip = 0;
  private unanswered = 0;
  /** Addresses the wallet has on each chain. */
  private readonly made: Record<WalletChain, number> = { receive: GAP.receive, change: GAP.change };
  /** Added since the synchronizer's last tick. */
  private toSubscribe: string[] = [];
  /** Confirmed transactions of the histories, by height, in the order they came. */
  private readonly confirmed = new Map<string, number>();
  private readonly proofAsked = new Set<string>();
  private readonly verified = new Set<string>();
  private readonly txAsked = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** The wallet's jobs are running: from then on the sync can be over. */
  private started = false;
  private finished = false;
  private settle!: { resolve: () => void; reject: (e: unknown) => void };
  private readonly done = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));

  constructor(
    private readonly s: WalletSession,
    private readonly w: WalletLine,
    private readonly found: Findings,
  ) {}

  async run(): Promise<void> {
    // Electrum cannot do without it; a server that closes the connection on it (Esplora's electrs)
    // is connected to again.
    await optional(this.s, () => this.request(null, 'server-info', 'server.features'));
    const headers = this.request<{ height?: unknown } | null>(null, 'headers', 'blockchain.headers.subscribe');
    for (const n of FEE_TARGETS) this.courtesy('fees', 'blockchain.estimatefee', [n]);
    // A server that does not say its tip (a null responder) leaves every confirmed transaction provable.
    const tip = (await headers)?.height;
    this.tip = typeof tip === 'number' ? tip : Infinity;
    for (const m of ['server.banner', 'server.donation_address', 'server.peers.subscribe'] as const) this.courtesy('server-info', m);
    this.courtesy('fees', Number(this.s.protocol) >= 1.6 ? 'mempool.get_info' : 'blockchain.relayfee');
    this.courtesy('fees', 'mempool.get_fee_histogram');
    this.started = true;
    const all = [...this.scripts('receive', 0, this.made.receive), ...this.scripts('change', 0, this.made.change)];
    for (const sh of this.shuffled(all)) this.subscribe(sh);
    this.every(0, () => this.requestProofs());
    this.every(TICK_MS, () => this.subscribeAdded());
    // Where the wallet's own loop is when the connection comes up: anywhere in its 100 ms.
    this.every(Math.random() * TICK_MS, () => this.widen());
    try {
      await this.done;
    } finally {
      for (const t of this.timers) clearTimeout(t);
    }
  }

  /** A request through the job's cap, then the connection's. */
  private async request<T = unknown>(job: Job, step: SyncStep, method: string, params: unknown[] = []): Promise<T> {
    const slots = job ? this.jobs[job] : undefined;
    await slots?.take();
    await this.inFlight.take();
    const started = performance.now();
    try {
      return await this.s.call<T>(step, method, params);
    } finally {
      this.inFlight.give(performance.now() - started);
      slots?.give();
    }
  }

  /** A call whose answer the sync does not need (its failure does not end it). */
  private courtesy(step: SyncStep, method: string, params: unknown[] = []): void {
    this.counted(this.request(null, step, method, params).catch(() => undefined));
  }

  /** A wallet request and what its answer starts: its failure ends the sync. */
  private job(job: Job, step: SyncStep, method: string, params: unknown[], then: (answer: unknown) => void): void {
    this.counted(this.request(job, step, method, params).then(then));
  }

  /** Unanswered until its answer was handled (and the requests that starts were made): then the sync may be over. */
  private counted(work: Promise<unknown>): void {
    this.unanswered++;
    work
      .catch((e: unknown) => this.fail(e))
      .finally(() => {
        this.unanswered--;
        this.checkDone();
      });
  }

  private subscribe(scripthash: string): void {
    this.job('synchronizer', 'subscribe', 'blockchain.scripthash.subscribe', [scripthash], (status) => {
      this.found.subscribed.add(scripthash);
      if (status !== null) this.job('synchronizer', 'history', 'blockchain.scripthash.get_history', [scripthash], (answer) => this.onHistory(scripthash, answer));
    });
  }

  private onHistory(scripthash: string, answer: unknown): void {
    const history = historyOf(answer, scripthash);
    this.found.histories.set(scripthash, history);
    for (const e of history) if (e.height > 0 && !this.confirmed.has(e.tx_hash)) this.confirmed.set(e.tx_hash, e.height);
    for (const e of history) {
      if (this.txAsked.has(e.tx_hash)) continue;
      this.txAsked.add(e.tx_hash);
      this.job('synchronizer', 'transactions', 'blockchain.transaction.get', [e.tx_hash], (hex) => this.found.rawTxs.set(e.tx_hash, hex as string));
    }
  }

  private requestProofs(): void {
    for (const [txid, height] of this.confirmed) {
      if (this.proofAsked.has(txid) || height > this.tip) continue;
      this.proofAsked.add(txid);
      this.job('verifier', 'proofs', 'blockchain.transaction.get_merkle', [txid, height], () => this.verified.add(txid));
    }
  }

  private subscribeAdded(): void {
    const added = this.toSubscribe;
    this.toSubscribe = [];
    for (const sh of this.shuffled(added)) this.subscribe(sh);
  }

  /** The wallet's gap rule: addresses until the last GAP of a chain hold none verified at 3 confirmations. */
  private widen(): void {
    for (const chain of ['receive', 'change'] as const) {
      const before = this.made[chain];
      while (this.scripts(chain, this.made[chain] - GAP[chain], this.made[chain]).some((sh) => this.isOld(sh))) this.made[chain]++;
      this.toSubscribe.push(...this.scripts(chain, before, this.made[chain]));
    }
  }

  /**
   * Used, as far as the window goes: one of its transactions downloaded and verified, as Electrum
   * waits for (without its 3 confirmations); one with only mempool transactions once they are in.
   */
  private isOld(scripthash: string): boolean {
    const history = this.found.histories.get(scripthash) ?? [];
    const inHand = (txid: string) => this.found.rawTxs.has(txid);
    return history.some((e) => inHand(e.tx_hash) && this.verified.has(e.tx_hash)) || (history.length > 0 && history.every((e) => e.height <= 0 && inHand(e.tx_hash)));
  }

  /**
   * Electrum draws a new order every time it starts (and walks a set for added addresses), and
   * which address comes first decides whether its first histories wait a second in the send
   * buffer: a small wallet's time to synced takes one of two values by that draw. A fixed order
   * would always take the same one, so each sync draws its own.
   */
  private shuffled(items: readonly string[]): string[] {
    return seededShuffle(items, randomUUID());
  }

  private scripts(chain: WalletChain, from: number, to: number): string[] {
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(scriptAt(this.w, chain, i).scripthash);
    return out;
  }

  /**
   * Over once nothing is unanswered, no proof is left to ask, and the wallet would add no address.
   * Called from answers and timers: what it throws (a window past the wallets file's scripts) ends
   * the sync, rather than escaping the callback.
   */
  private checkDone(): void {
    try {
      if (!this.over()) return;
    } catch (e) {
      return this.fail(e);
    }
    this.finished = true;
    this.settle.resolve();
  }

  private over(): boolean {
    if (!this.started || this.finished || this.unanswered > 0 || this.toSubscribe.length > 0) return false;
    for (const [txid, height] of this.confirmed) if (!this.proofAsked.has(txid) && height <= this.tip) return false;
    for (const chain of ['receive', 'change'] as const) if (this.scripts(chain, this.made[chain] - GAP[chain], this.made[chain]).some((sh) => this.isOld(sh))) return false;
    return true;
  }

  private fail(e: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.settle.reject(e);
  }

  /** Runs `fn` after `firstMs`, then every TICK_MS after it returned, until the sync is over. */
  private every(firstMs: number, fn: () => void): void {
    const tick = () => {
      this.timers.delete(timer);
      if (this.finished) return;
      try {
        fn();
      } catch (e) {
        return this.fail(e);
      }
      this.checkDone();
      timer = setTimeout(tick, TICK_MS);
      this.timers.add(timer);
    };
    let timer = setTimeout(tick, firstMs);
    this.timers.add(timer);
  }
}
