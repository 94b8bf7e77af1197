/**
 * How blocks come to a wallet load's held wallets, one after another: made here (a miner, or the
 * next natural block), or, in a coordinated test (`--coordinator`), made by shard 1 while every
 * shard holds its share of the wallets. The shards then take each block together: all hold their
 * wallets, shard 1 pays some and tells which scripts, all hear the payment, shard 1 mines and tells
 * the block and when it asked for it (on its clock, which each shard corrects by the offset it
 * measured when it registered), and each shard judges its own held connections against that
 * instant. A shard that stops ends its waits at once (StepStopped).
 */
import { until } from '../core/until';
import type { Coordinator, ShardLink } from '../engine/coordinator';
import type { HeldWallet } from './rehold';
import type { HeldConnection } from './notifications';

/**
 * Where blocks come from: mined on request (the lab, or a regtest node), timed from the mining
 * call; or, with no `mineOne`, natural blocks, which nobody can time from their finding: each is
 * timed from the first held connection that heard it, so what is measured is how much later the
 * others heard it.
 */
export interface BlockMaker {
  /** Payments are possible only on a node whose keys we hold (the lab). */
  pay?: (addresses: string[], sats: number) => Promise<string>;
  mineOne?: () => Promise<{ height: number; askedNs: bigint; returnedNs: bigint }>;
  recordChange?: (blocks: number, payments: number) => void;
  /** Natural blocks: how long to wait for each. */
  naturalWaitMs?: number;
}

/** A block as the held wallets are judged on it: its height, and when it was asked for and came back (hrtime ns here). */
export interface Block {
  height: number;
  askedNs: bigint;
  returnedNs: bigint;
  /** Whether it was mined on request (its mining call timed), not a natural block. */
  mined: boolean;
}

/** A payment before a block: the scripts paid, and since when (hrtime ns here) their notifications count. */
export interface Payment {
  paid: Set<string>;
  sinceNs: bigint;
}

/** What one held connection set judged of a block, as shards tell shard 1. */
export interface BlockFigures {
  headers: { expected: number; ok: number; missing: number };
  scripthash: { expected: number; ok: number; missing: number };
}

export interface Blocks {
  /** Natural blocks: how long one may take to come (for the log). */
  readonly naturalWaitMs?: number;
  /** Before `step`'s block: every shard holds its wallets (alone: at once). */
  ready(step: string): Promise<void>;
  /**
   * The payment before the block: made here to the next unused receive address of `payWallets` held
   * wallets (`nextUnused` keeps where each wallet is), or learnt from shard 1; null when none.
   */
  pay(step: string, held: HeldWallet[], payWallets: number, amountSat: number, nextUnused: Map<string, number>): Promise<Payment | null>;
  /** Every shard heard the payment (alone: at once). */
  paymentHeard(step: string): Promise<void>;
  /** The block; null when none came (no natural block in time, or `stopped` while waiting for one). */
  block(step: string, held: HeldConnection[], stopped: () => boolean): Promise<Block | null>;
  /** This side's figures of the block; resolves with every shard's (alone: its own). */
  judged(step: string, figures: BlockFigures): Promise<BlockFigures[]>;
  /** This side stopped: a wait for the others ends (StepStopped). */
  release(): void;
}

const now = (): number => performance.timeOrigin + performance.now();
/** An hrtime instant here as epoch ms on this machine's clock. */
const epochOf = (ns: bigint): number => now() - Number(process.hrtime.bigint() - ns) / 1e6;
/** An epoch ms instant on this machine's clock as hrtime ns. */
const hrtimeOf = (epochMs: number): bigint => process.hrtime.bigint() - BigInt(Math.round((now() - epochMs) * 1e6));

/** Blocks made here, for this process's held wallets alone. */
export class LocalBlocks implements Blocks {
  constructor(private readonly maker: BlockMaker) {}

  get naturalWaitMs(): number | undefined {
    return this.maker.naturalWaitMs;
  }

  async ready(): Promise<void> {}

  async pay(_step: string, held: HeldWallet[], payWallets: number, amountSat: number, nextUnused: Map<string, number>): Promise<Payment | null> {
    if (!this.maker.pay || payWallets <= 0) return null;
    const paid = new Set<string>();
    const wallets = [...new Map(held.map((h) => [h.wallet.wallet, h.wallet])).values()].slice(0, payWallets);
    const addresses: string[] = [];
    for (const w of wallets) {
      const index = nextUnused.get(w.wallet) ?? w.expected.usedScripts.receive;
      const s = w.chains.receive[index];
      if (!s?.address) continue;
      nextUnused.set(w.wallet, index + 1);
      addresses.push(s.address);
      paid.add(s.scripthash);
    }
    if (!addresses.length) return null;
    const sinceNs = process.hrtime.bigint();
    await this.maker.pay(addresses, amountSat);
    this.maker.recordChange?.(0, 1);
    return { paid, sinceNs };
  }

  async paymentHeard(): Promise<void> {}

  async block(_step: string, held: HeldConnection[], stopped: () => boolean): Promise<Block | null> {
    if (this.maker.mineOne) {
      const block = await this.maker.mineOne();
      this.maker.recordChange?.(1, 0);
      return { ...block, mined: true };
    }
    const block = await naturalBlock(held, this.maker.naturalWaitMs ?? 0, stopped);
    return block && { ...block, mined: false };
  }

  async judged(_step: string, figures: BlockFigures): Promise<BlockFigures[]> {
    return [figures];
  }

  release(): void {}
}

/** How long shard 1 waits for the others at a step: as long as a block and its notifications may take. */
const STEP_WAIT_MS = 30 * 60_000;

/** Shard 1 of a coordinated test: makes each block here and takes the other shards along. */
export class CoordinatorBlocks implements Blocks {
  constructor(
    private readonly local: LocalBlocks,
    private readonly coordinator: Coordinator,
  ) {}

  get naturalWaitMs(): number | undefined {
    return this.local.naturalWaitMs;
  }

  async ready(step: string): Promise<void> {
    await this.coordinator.gather(`${step}: ready`, STEP_WAIT_MS);
  }

  async pay(step: string, held: HeldWallet[], payWallets: number, amountSat: number, nextUnused: Map<string, number>): Promise<Payment | null> {
    const payment = await this.local.pay(step, held, payWallets, amountSat, nextUnused);
    this.coordinator.tell(`${step}: paid`, payment && { scripthashes: [...payment.paid], sinceMs: epochOf(payment.sinceNs) });
    return payment;
  }

  async paymentHeard(step: string): Promise<void> {
    await this.coordinator.gather(`${step}: payment heard`, STEP_WAIT_MS);
  }

  async block(step: string, held: HeldConnection[], stopped: () => boolean): Promise<Block | null> {
    const block = await this.local.block(step, held, stopped);
    this.coordinator.tell(`${step}: block`, block && { height: block.height, askedMs: epochOf(block.askedNs), returnedMs: epochOf(block.returnedNs), mined: block.mined });
    return block;
  }

  async judged(step: string, figures: BlockFigures): Promise<BlockFigures[]> {
    const others = await this.coordinator.gather(`${step}: judged`, STEP_WAIT_MS);
    return [figures, ...[...others.values()].map((f) => f as BlockFigures)];
  }

  release(): void {
    this.coordinator.release();
  }
}

/** Shards 2..N of a coordinated test: each block is shard 1's, its instant on this machine's clock. */
export class ShardBlocks implements Blocks {
  constructor(private readonly link: ShardLink) {}

  async ready(step: string): Promise<void> {
    this.link.arrive(`${step}: ready`);
  }

  async pay(step: string): Promise<Payment | null> {
    const told = (await this.link.hear(`${step}: paid`, STEP_WAIT_MS)) as { scripthashes: string[]; sinceMs: number } | null;
    return told && { paid: new Set(told.scripthashes), sinceNs: hrtimeOf(this.link.localEpochMs(told.sinceMs)) };
  }

  async paymentHeard(step: string): Promise<void> {
    this.link.arrive(`${step}: payment heard`);
  }

  async block(step: string): Promise<Block | null> {
    const told = (await this.link.hear(`${step}: block`, STEP_WAIT_MS)) as { height: number; askedMs: number; returnedMs: number; mined: boolean } | null;
    if (!told) return null;
    return { height: told.height, askedNs: hrtimeOf(this.link.localEpochMs(told.askedMs)), returnedNs: hrtimeOf(this.link.localEpochMs(told.returnedMs)), mined: told.mined };
  }

  async judged(step: string, figures: BlockFigures): Promise<BlockFigures[]> {
    this.link.arrive(`${step}: judged`, figures);
    return [figures];
  }

  release(): void {
    this.link.release();
  }
}

/** The next block any held connection hears of, timed from the first that heard it. */
async function naturalBlock(held: HeldConnection[], maxMs: number, stopped: () => boolean): Promise<{ height: number; askedNs: bigint; returnedNs: bigint } | null> {
  let first: { height: number; atNs: bigint } | null = null;
  const seen = () => {
    for (const c of held) {
      for (const n of c.heard) {
        const h = n.method === 'blockchain.headers.subscribe' && Array.isArray(n.params) ? (n.params[0] as { height?: unknown })?.height : undefined;
        if (typeof h === 'number' && (!first || n.atNs < first.atNs)) first = { height: h, atNs: n.atNs };
      }
    }
    return first !== null;
  };
  await until(seen, maxMs, stopped);
  const f = first as { height: number; atNs: bigint } | null;
  return f ? { height: f.height, askedNs: f.atNs, returnedNs: f.atNs } : null;
}

